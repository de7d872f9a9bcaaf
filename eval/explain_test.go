package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/extractive"
)

func TestExplainedOf(t *testing.T) {
	sel := func(id string) Question {
		return Question{ID: id, Question: "When?", SelectedText: "It was captured at noon.", Expect: "answer", Category: "selected_sufficient", AnswerTerms: []string{"noon"}}
	}
	qs := []Question{sel("lead"), sel("def"), sel("both"), sel("nothing"), sel("refused"), sel("related"), qAns, qSelNo}
	tu := &scriptedTutor{byID: map[string]rag.ChatResponse{
		"lead/explain":    reply(extractive.LeadInTitle+"“Clock” (Time):\n\nClocks drift at noon.", "c1"),
		"def/explain":     reply(extractive.DefinitionTitle+"“Noon” in “Glossary”:\n\nMidday, noon.", "c2"),
		"both/explain":    reply(extractive.LeadInTitle+"“Clock”:\n\nA.\n\n"+extractive.DefinitionTitle+"“Noon”:\n\nB.", "c1", "c2"),
		"nothing/explain": reply(extractive.NothingMore),
		"refused/explain": refusal(rag.SelectedTextInsufficient),
		"related/explain": reply(extractive.RelatedTitle+"\n\n- “Clock” (Time)", "c1"),
	}}
	got, err := ExplainedOf(context.Background(), "book", tu, qs)
	if err != nil {
		t.Fatal(err)
	}
	want := Explained{Book: "book", Selections: 6, Refused: 1, LeadIn: 2, Definition: 2, Either: 3, Related: 1, NothingMore: 1, Whole: 3}
	if got != want {
		t.Errorf("ExplainedOf = %+v, want %+v", got, want)
	}
	for _, r := range tu.reqs {
		if r.Question != ExplainQuestion || r.SelectedText == "" {
			t.Errorf("asked %q of %q, want %q of a selection", r.Question, r.SelectedText, ExplainQuestion)
		}
	}
	if r := got.Rate(); r != 0.5 {
		t.Errorf("rate %v, want 0.5", r)
	}
}

func TestWriteExplainedTableGolden(t *testing.T) {
	var buf bytes.Buffer
	rows := []Explained{
		{Book: "robotics", Selections: 10, LeadIn: 3, Definition: 5, Either: 6, Related: 5, NothingMore: 4, Whole: 10},
		{Book: "ml", Selections: 6, Refused: 1, LeadIn: 1, Definition: 1, Either: 2, Related: 2, NothingMore: 3, Whole: 5},
	}
	if err := WriteExplainedTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "explained.golden")
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
		t.Errorf("WriteExplainedTable =\n%s\nwant (%s)\n%s", buf.String(), golden, want)
	}
}
