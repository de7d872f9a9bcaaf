package eval

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

var update = flag.Bool("update", false, "rewrite golden files")

var chunks = map[string]rag.Chunk{
	"c1": {ID: "c1", ChapterPath: "module-1/sensors", SectionHeading: "IMU", Headings: []rag.Heading{{Text: "IMU"}, {Text: "Drift {#drift}"}}},
	"c2": {ID: "c2", ChapterPath: "module-2/topics", SectionHeading: "QoS"},
}

func lookup(id string) (rag.Chunk, bool) { c, ok := chunks[id]; return c, ok }

func answer(text string, ids ...string) rag.ChatResponse {
	var src []rag.Source
	for _, id := range ids {
		src = append(src, rag.Source{ChunkID: id, SectionHeading: chunks[id].SectionHeading, Score: 0.8})
	}
	return rag.ChatResponse{Answer: text, Sources: src}
}

func refusal(reason rag.RefusalReason) rag.ChatResponse { return rag.Refusal(reason, "no", "s") }

func TestScore(t *testing.T) {
	ans := Question{ID: "a", Expect: "answer", Category: "factual", GoldChapter: "module-1/sensors", GoldHeading: "IMU", AnswerTerms: []string{"10 cm|ten centimetres", "drift"}}
	sub := ans
	sub.GoldHeading = "drift"
	ref := Question{ID: "r", Expect: "refuse", Category: "off_domain", Reasons: []string{"empty_retrieval", "insufficient_context"}}
	sel := Question{ID: "s", Expect: "answer", Category: "selected_sufficient", SelectedText: "x", AnswerTerms: []string{"captured"}}
	tests := []struct {
		name    string
		q       Question
		resp    rag.ChatResponse
		correct bool
		why     string
	}{
		{"answer with terms and gold", ans, answer("It moves TEN CENTIMETRES and Drift grows.", "c1"), true, ""},
		{"alternative term", ans, answer("10 cm of drift", "c2", "c1"), true, ""},
		{"missing term", ans, answer("10 cm", "c1"), false, `missing term "drift"`},
		{"wrong source", ans, answer("10 cm drift", "c2"), false, "no source at module-1/sensors › IMU (got: module-2/topics › QoS)"},
		{"gold sub-heading inside the chunk", sub, answer("10 cm drift", "c1"), true, ""},
		{"refused an answerable question", ans, refusal(rag.EmptyRetrieval), false, "refused: empty_retrieval"},
		{"refusal with a listed reason", ref, refusal(rag.InsufficientContext), true, ""},
		{"refusal with another reason", ref, refusal(rag.OutOfScope), false, "wrong reason out_of_scope (want empty_retrieval|insufficient_context)"},
		{"answered what must be refused", ref, answer("banana", "c1"), false, "answered a question that must be refused"},
		{"selected needs no source", sel, answer("when the data was captured"), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Score(tt.q, tt.resp, lookup)
			if r.Correct != tt.correct || r.Why != tt.why {
				t.Errorf("Score = %v %q, want %v %q", r.Correct, r.Why, tt.correct, tt.why)
			}
		})
	}
}

func TestReadQuestionsErrors(t *testing.T) {
	good := `{"id":"q1","question":"What?","expect":"refuse","reasons":["empty_retrieval"],"category":"off_domain"}`
	tests := []struct {
		name, input, want string
	}{
		{"bad json", good + "\n{", "line 2:"},
		{"duplicate id", good + "\n\n" + good, "line 3: duplicate id q1"},
		{"unknown reason", `{"id":"q","question":"x","expect":"refuse","reasons":["nope"],"category":"off_domain"}`, "line 1: q: unknown refusal reason"},
		{"answer without gold", `{"id":"q","question":"x","expect":"answer","answer_terms":["a"],"category":"factual"}`, "needs gold_chapter"},
		{"category disagrees", `{"id":"q","question":"x","expect":"answer","answer_terms":["a"],"gold_chapter":"c","gold_heading":"h","category":"off_domain"}`, "expects refuse"},
		{"empty file", "\n\n", "no questions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadQuestions(strings.NewReader(tt.input))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	qs, err := ReadQuestions(strings.NewReader(good + "\n"))
	if err != nil || len(qs) != 1 {
		t.Fatalf("good file: %v %v", qs, err)
	}
}

func TestReportText(t *testing.T) {
	rep := &Report{Results: []Result{
		{ID: "a1", Category: "factual", Expect: "answer", Got: "answer", Correct: true},
		{ID: "a2", Category: "factual", Expect: "answer", Got: "refuse", RefusalReason: "insufficient_context", Why: "refused: insufficient_context"},
		{ID: "o1", Category: "off_domain", Expect: "refuse", Got: "refuse", RefusalReason: "empty_retrieval", Correct: true},
		{ID: "p1", Category: "out_of_scope_pattern", Expect: "refuse", Got: "refuse", RefusalReason: "out_of_scope", Correct: true},
		{ID: "s1", Category: "selected_insufficient", Expect: "refuse", Got: "refuse", RefusalReason: "selected_text_insufficient", Correct: true},
	}}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf, true); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		os.WriteFile(golden, buf.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("report =\n%s\nwant\n%s", buf.String(), want)
	}
	if rep.Passed() {
		t.Error("50% answerable passed the 90% bar")
	}
}

func TestDevQuestionsLoad(t *testing.T) {
	path := "../../shared/eval/dev-questions.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not present: skipping", path)
	}
	qs, err := ReadQuestionsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 125 {
		t.Errorf("loaded %d questions, want 125", len(qs))
	}
}

type fixedRetriever map[string]float64

func (f fixedRetriever) Retrieve(ctx context.Context, q string, k int) ([]rag.ScoredChunk, error) {
	return []rag.ScoredChunk{{Score: f[q]}}, nil
}

func TestCalibrate(t *testing.T) {
	var qs []Question
	r := fixedRetriever{}
	for i, s := range []float64{0.9, 0.8, 0.75, 0.62, 0.55} {
		q := Question{ID: fmt.Sprint("a", i), Question: fmt.Sprint("a", i), Expect: "answer", Category: "factual"}
		qs, r[q.Question] = append(qs, q), s
	}
	for i, s := range []float64{0.1, 0.2, 0.3, 0.45, 0.58} {
		q := Question{ID: fmt.Sprint("r", i), Question: fmt.Sprint("r", i), Expect: "refuse", Category: "off_domain"}
		qs, r[q.Question] = append(qs, q), s
	}
	qs = append(qs, Question{ID: "s", Question: "ignored", SelectedText: "x", Expect: "answer", Category: "selected_sufficient"})
	c, err := Calibrate(context.Background(), r, qs, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Answerable) != 5 || len(c.Refuse) != 5 {
		t.Fatalf("%d answerable, %d refuse; selected-text questions must be skipped", len(c.Answerable), len(c.Refuse))
	}
	// 0.55 passes all five answerable questions and stops four of five
	// refusals (0.8 = MinRefuseStop); a higher bar passes fewer.
	if c.Best.Confident != 0.55 || c.Best.AnswerPass != 1 || c.Best.RefuseStop != 0.8 {
		t.Errorf("recommended %+v", c.Best)
	}
	if c.Best.Confident-c.Best.Empty < 0.1-1e-9 {
		t.Errorf("recommended thresholds without a band: %+v", c.Best)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "recommended: --empty-threshold") {
		t.Errorf("WriteText: %v\n%s", err, buf.String())
	}
}
