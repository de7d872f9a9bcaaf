package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag"
)

// cannedSearch returns fixed sections per question.
type cannedSearch struct {
	hits   map[string][]rag.SectionHit
	limits []int
}

func (s *cannedSearch) Search(ctx context.Context, q string, limit int) ([]rag.SectionHit, error) {
	s.limits = append(s.limits, limit)
	return s.hits[q], nil
}

func hit(id string) rag.SectionHit {
	return rag.SectionHit{ChunkID: id, Heading: chunks[id].SectionHeading, ChapterPath: chunks[id].ChapterPath}
}

func TestLinksOf(t *testing.T) {
	answerable := func(id, heading string) Question {
		return Question{ID: id, Question: id + "?", Expect: "answer", Category: "factual", GoldChapter: "module-2/topics", GoldHeading: heading, AnswerTerms: []string{"x"}}
	}
	qs := []Question{
		answerable("gold-second", "QoS"),   // the gold section is the second link
		answerable("wrong-section", "QoS"), // links elsewhere only
		answerable("no-links", "QoS"),      // the search finds nothing
		answerable("answered", "QoS"),      // not refused: not counted
		answerable("empty", "QoS"),         // refused empty_retrieval: no links shown
		{ID: "sub", Question: "sub?", Expect: "answer", Category: "factual", GoldChapter: "module-1/sensors", GoldHeading: "Drift", AnswerTerms: []string{"x"}}, // a sub-heading the linked chunk holds
		{ID: "selected", Question: "selected?", SelectedText: "text", Expect: "answer", Category: "selected_sufficient", AnswerTerms: []string{"x"}},
		{ID: "uncovered", Question: "uncovered?", Expect: "refuse", Reasons: []string{"insufficient_context"}, Category: "in_domain_uncovered"},
	}
	rep := &Report{}
	for _, q := range qs {
		r := Result{ID: q.ID, Expect: q.Expect, Got: "refuse", RefusalReason: "insufficient_context"}
		switch q.ID {
		case "answered":
			r.Got, r.RefusalReason = "answer", ""
		case "empty":
			r.RefusalReason = "empty_retrieval"
		}
		rep.Results = append(rep.Results, r)
	}
	s := &cannedSearch{hits: map[string][]rag.SectionHit{
		"gold-second?":   {hit("c3"), hit("c2")},
		"wrong-section?": {hit("c3"), hit("c1")},
		"sub?":           {hit("c1")},
		"selected?":      {hit("c2")},
		"uncovered?":     {hit("c3")},
		"answered?":      {hit("c2")},
		"empty?":         {hit("c2")},
	}}
	got, err := LinksOf(context.Background(), "book", s, 3, 0, qs, rep, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := Links{Book: "book", Limit: 3, Refused: 4, Offered: 3, Gold: 2, MustRefuse: 1, MustRefuseOffered: 1}
	if got != want {
		t.Errorf("LinksOf = %+v, want %+v", got, want)
	}
	if len(s.limits) != 5 || s.limits[0] != 3 {
		t.Errorf("searched %d times with limits %v, want 5 searches of 3", len(s.limits), s.limits)
	}
	if r := got.Rate(); r != 0.5 {
		t.Errorf("rate %v, want 0.5", r)
	}
	// With a floor, only the sections scoring it are offered, as the
	// widget asks for them after a refusal.
	for _, h := range []string{"gold-second?", "uncovered?"} {
		for i := range s.hits[h] {
			s.hits[h][i].Score = 0.4
		}
	}
	s.hits["gold-second?"][1].Score = 0.8
	got, err = LinksOf(context.Background(), "book", s, 3, 0.7, qs, rep, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want = Links{Book: "book", Limit: 3, Refused: 4, Offered: 1, Gold: 1, MustRefuse: 1, MustRefuseOffered: 0}
	if got != want {
		t.Errorf("with a floor of 0.7: %+v, want %+v", got, want)
	}
}

func TestWriteLinksTableGolden(t *testing.T) {
	var buf bytes.Buffer
	rows := []Links{
		{Book: "robotics", Limit: 3, Refused: 20, Offered: 19, Gold: 11, MustRefuse: 6, MustRefuseOffered: 5},
		{Book: "ml", Limit: 3, Refused: 10, Offered: 10, Gold: 4, MustRefuse: 2, MustRefuseOffered: 2},
	}
	if err := WriteLinksTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "links.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./eval/ -run Golden -update)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("WriteLinksTable =\n%s\nwant (%s)\n%s", buf.String(), golden, want)
	}
}
