package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/internal/sharedtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// chunks is the test book: c1 holds a section and one of its
// sub-sections, c2 and c3 other sections; c4 ends the QoS section (its
// overlap) and goes on into the Publishers section.
var chunks = map[string]rag.Chunk{
	"c1": {ID: "c1", ChapterPath: "module-1/sensors", SectionHeading: "IMU {#imu}",
		Headings: []rag.Heading{{Level: 2, Text: "IMU {#imu}"}, {Level: 3, Text: "Drift"}},
		Text:     "## IMU {#imu}\n\nAn IMU measures motion.\n\n```python\n# a comment, not a heading\n```\n\n### Drift\n\nBias makes it drift."},
	"c2": {ID: "c2", ChapterPath: "module-2/topics", SectionHeading: "QoS"},
	"c3": {ID: "c3", ChapterPath: "module-2/topics", SectionHeading: "Publishers"},
	"c4": {ID: "c4", ChapterPath: "module-2/topics", SectionHeading: "Publishers",
		Headings: []rag.Heading{{Level: 2, Text: "Publishers"}, {Level: 2, Text: "QoS"}},
		Text:     "## QoS\n\nKeep the last ten.\n\n## Publishers\n\nA publisher sends 10 cm drift."},
	"c5": {ID: "c5", ChapterPath: "module-1/sensors", SectionHeading: "IMU {#imu}",
		Headings: []rag.Heading{{Level: 2, Text: "IMU {#imu}"}, {Level: 3, Text: "Bias"}},
		Text:     "[Section: IMU]\n\nIt goes on.\n\n### Bias\n\nBias grows 10 cm of drift."},
}

func lookup(id string) (rag.Chunk, bool) { c, ok := chunks[id]; return c, ok }

// reply builds an answer citing the chunks; a source's heading is its
// chunk's section heading, as the tutor reports it.
func reply(text string, ids ...string) rag.ChatResponse {
	src := []rag.Source{}
	for i, id := range ids {
		src = append(src, rag.Source{ChunkID: id, ChapterID: "ch-" + id, SectionHeading: chunks[id].SectionHeading, Score: 0.9 - 0.1*float64(i)})
	}
	return rag.ChatResponse{Answer: text, Sources: src}
}

// cite builds an answer citing one section of a chunk, as the extractive
// generator cites the section each quoted passage comes from.
func cite(text, id, heading string) rag.ChatResponse {
	return rag.ChatResponse{Answer: text, Sources: []rag.Source{{ChunkID: id, ChapterID: "ch-" + id, SectionHeading: heading, Score: 0.9}}}
}

func refusal(reason rag.RefusalReason) rag.ChatResponse {
	return rag.Refusal(reason, "I can't answer that.", "")
}

// scriptedTutor returns a canned response per question id, which it
// recovers from the request's fixed session id.
type scriptedTutor struct {
	byID map[string]rag.ChatResponse
	reqs []rag.ChatRequest
	fail string // id whose Ask returns an error
}

func (s *scriptedTutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	if stream != nil {
		return rag.ChatResponse{}, errors.New("eval must not stream")
	}
	s.reqs = append(s.reqs, req)
	for id, resp := range s.byID {
		if sessionID(id) == req.SessionID {
			if id == s.fail {
				return rag.ChatResponse{}, errors.New("generator down")
			}
			resp.SessionID = req.SessionID
			return resp, nil
		}
	}
	return rag.ChatResponse{}, fmt.Errorf("no script for session %s", req.SessionID)
}

var (
	qAns = Question{ID: "ans", Question: "  How far?  ", Expect: "answer", Category: "factual",
		GoldChapter: "module-1/sensors", GoldHeading: "IMU", AnswerTerms: []string{"10 cm | ten centimetres", "Drift"}}
	qSub = Question{ID: "sub", Question: "What drifts?", Expect: "answer", Category: "definition",
		GoldChapter: "module-1/sensors", GoldHeading: "drift {#drift}", AnswerTerms: []string{"bias"}}
	qPub = Question{ID: "pub", Question: "How far?", Expect: "answer", Category: "factual",
		GoldChapter: "module-2/topics", GoldHeading: "Publishers", AnswerTerms: []string{"10 cm"}}
	qOff = Question{ID: "off", Question: "Best pasta?", Expect: "refuse", Category: "off_domain",
		Reasons: []string{"empty_retrieval", "insufficient_context"}}
	qOOS = Question{ID: "oos", Question: "How do I tune a PID?", Expect: "refuse", Category: "out_of_scope_pattern",
		Reasons: []string{"out_of_scope", "empty_retrieval", "insufficient_context"}}
	qSel = Question{ID: "sel", Question: "When?", SelectedText: "It was captured at noon.", Expect: "answer",
		Category: "selected_sufficient", AnswerTerms: []string{"noon"}}
	qSelNo = Question{ID: "selno", Question: "Who?", SelectedText: "It was captured at noon.", Expect: "refuse",
		Category: "selected_insufficient", Reasons: []string{"selected_text_insufficient"}}
)

func TestScore(t *testing.T) {
	other := qAns
	other.GoldChapter, other.GoldHeading = "module-2/topics", "Publishers"
	tests := []struct {
		name    string
		q       Question
		resp    rag.ChatResponse
		correct bool
		why     string
	}{
		{"terms and gold source", qAns, reply("It moves 10 cm and drift grows.", "c1"), true, ""},
		{"second alternative, trimmed", qAns, reply("ten centimetres of drift", "c1"), true, ""},
		{"terms case-insensitive", qAns, reply("TEN CENTIMETRES, DRIFT", "c1"), true, ""},
		{"missing term", qAns, reply("10 cm", "c1"), false, `missing term "Drift"`},
		{"term alternatives all missing", qAns, reply("a metre of drift", "c1"), false, `missing term "10 cm | ten centimetres"`},
		{"gold among several sources", qAns, reply("10 cm drift", "c2", "c1"), true, ""},
		{"gold via source heading, anchor removed", other, reply("10 cm drift", "c3"), true, ""},
		{"gold via the chunk's sub-heading", qSub, reply("BIAS", "c1"), true, ""},
		{"a section the gold one follows in its chunk", qPub, cite("10 cm drift", "c4", "QoS"), false, "no source at module-2/topics › Publishers (got: module-2/topics › QoS)"},
		{"the gold section in a chunk that opens on another", qPub, cite("10 cm drift", "c4", "Publishers"), true, ""},
		{"a part of the gold section", qAns, cite("10 cm drift", "c1", "Drift"), true, ""},
		{"a part of the gold section its chunk goes on with", qAns, cite("10 cm drift", "c5", "Bias"), true, ""},
		{"right heading, wrong chapter", other, reply("10 cm drift", "c1"), false, "no source at module-2/topics › Publishers (got: module-1/sensors › IMU {#imu})"},
		{"wrong source", qAns, reply("10 cm drift", "c2"), false, "no source at module-1/sensors › IMU (got: module-2/topics › QoS)"},
		{"unknown chunk", qAns, reply("10 cm drift", "zz"), false, "no source at module-1/sensors › IMU (got: ch-zz (chunk zz unknown) › )"},
		{"no sources", qAns, reply("10 cm drift"), false, "no source at module-1/sensors › IMU (got: no sources)"},
		{"refused an answerable question", qAns, refusal(rag.EmptyRetrieval), false, "refused: empty_retrieval"},
		{"refusal with a listed reason", qOff, refusal(rag.InsufficientContext), true, ""},
		{"refusal with another reason", qOff, refusal(rag.OutOfScope), false, "wrong reason out_of_scope (want empty_retrieval|insufficient_context)"},
		{"refusal without a reason", qOff, rag.ChatResponse{WasRefusal: true}, false, "wrong reason (none) (want empty_retrieval|insufficient_context)"},
		{"answered what must be refused", qOff, reply("Carbonara.", "c2"), false, "answered a question that must be refused"},
		{"selected text needs no source", qSel, reply("At NOON."), true, ""},
		{"selected text still needs the terms", qSel, reply("At dawn."), false, `missing term "noon"`},
		{"selected insufficient, right reason", qSelNo, refusal(rag.SelectedTextInsufficient), true, ""},
		{"selected insufficient, wrong reason", qSelNo, refusal(rag.InsufficientContext), false, "wrong reason insufficient_context (want selected_text_insufficient)"},
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

func TestRun(t *testing.T) {
	qs := []Question{qAns, qSub, qOff, qOOS, qSel, qSelNo}
	tutor := &scriptedTutor{byID: map[string]rag.ChatResponse{
		"ans":   reply("10 cm of drift", "c2", "c1"),
		"sub":   reply("no idea", "c1"),
		"off":   refusal(rag.EmptyRetrieval),
		"oos":   refusal(rag.InsufficientContext),
		"sel":   refusal(rag.SelectedTextInsufficient),
		"selno": refusal(rag.SelectedTextInsufficient),
	}}
	rep, err := Run(context.Background(), tutor, qs, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{ID: "ans", Category: "factual", Expect: "answer", Got: "answer", Correct: true, MaxScore: 0.9, AnswerChars: 14},
		{ID: "sub", Category: "definition", Expect: "answer", Got: "answer", Why: `missing term "bias"`, MaxScore: 0.9, AnswerChars: 7},
		{ID: "off", Category: "off_domain", Expect: "refuse", Got: "refuse", RefusalReason: "empty_retrieval", Correct: true},
		{ID: "oos", Category: "out_of_scope_pattern", Expect: "refuse", Got: "refuse", RefusalReason: "insufficient_context", Correct: true},
		{ID: "sel", Category: "selected_sufficient", Expect: "answer", Got: "refuse", RefusalReason: "selected_text_insufficient", Why: "refused: selected_text_insufficient"},
		{ID: "selno", Category: "selected_insufficient", Expect: "refuse", Got: "refuse", RefusalReason: "selected_text_insufficient", Correct: true},
	}
	if len(rep.Results) != len(want) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(want))
	}
	for i, got := range rep.Results {
		if got.Latency <= 0 {
			t.Errorf("%s: latency %v not measured", got.ID, got.Latency)
		}
		got.Latency = 0
		if got != want[i] {
			t.Errorf("result %d =\n  %+v\nwant\n  %+v", i, got, want[i])
		}
	}

	// The requests: normalized, the selection passed on, one fixed UUID
	// session per question.
	if q := tutor.reqs[0].Question; q != "How far?" {
		t.Errorf("question %q not normalized", q)
	}
	if s := tutor.reqs[4].SelectedText; s != qSel.SelectedText {
		t.Errorf("selected text %q not passed on", s)
	}
	seen := map[string]bool{}
	for i, req := range tutor.reqs {
		if _, err := uuid.Parse(req.SessionID); err != nil || seen[req.SessionID] {
			t.Errorf("request %d: session %q not a fresh UUID (%v)", i, req.SessionID, err)
		}
		seen[req.SessionID] = true
	}
	again := &scriptedTutor{byID: tutor.byID}
	if _, err := Run(context.Background(), again, qs[:1], lookup); err != nil || again.reqs[0].SessionID != tutor.reqs[0].SessionID {
		t.Errorf("session id changed between runs: %v", err)
	}

	o := rep.Overall()
	// "sub" is a wrong answer; "sel" a refusal that should have answered:
	// unhelpful (0) but not wrong (-1).
	if o.Answerable != (Figure{Correct: 1, Total: 3, Rate: 1.0 / 3, Wrong: 1, WrongRate: 1.0 / 3, Score: 0}) ||
		o.Worded != (Figure{Correct: 1, Total: 2, Rate: 0.5, Wrong: 1, WrongRate: 0.5, Score: 0}) ||
		o.Refusals != (Figure{Correct: 3, Total: 3, Rate: 1, Score: 1}) ||
		o.All != (Figure{Correct: 4, Total: 6, Rate: 4.0 / 6, Wrong: 1, WrongRate: 1.0 / 6, Score: 0.5}) {
		t.Errorf("overall %+v", o)
	}
}

func TestRunErrors(t *testing.T) {
	tutor := &scriptedTutor{byID: map[string]rag.ChatResponse{"ans": reply("x"), "off": refusal(rag.EmptyRetrieval)}, fail: "off"}
	_, err := Run(context.Background(), tutor, []Question{qAns, qOff}, lookup)
	if err == nil || !strings.Contains(err.Error(), "off: generator down") {
		t.Errorf("tutor error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tutor, []Question{qAns}, lookup); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestReadQuestions(t *testing.T) {
	in := `
{"id":"a","question":"What is ROS 2?","expect":"answer","reasons":[],"gold_chapter":"module-1/intro","gold_heading":"ROS 2 {#ros2}","answer_terms":["middleware|framework"],"category":"definition","note":"n"}

{"id":"b","question":"Why?","selected_text":"Because.","expect":"refuse","reasons":["selected_text_insufficient"],"category":"selected_insufficient"}
`
	qs, err := ReadQuestions(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].GoldHeading != "ROS 2 {#ros2}" || qs[0].Note != "n" || qs[1].SelectedText != "Because." || qs[1].Reasons[0] != "selected_text_insufficient" {
		t.Errorf("parsed %+v", qs)
	}
}

func TestReadQuestionsErrors(t *testing.T) {
	ok := `{"id":"q1","question":"What?","expect":"refuse","reasons":["empty_retrieval"],"category":"off_domain"}`
	line := func(fields string) string {
		return `{"id":"q","question":"x",` + fields + `}`
	}
	ans := `"expect":"answer","answer_terms":["a"],"gold_chapter":"c","gold_heading":"h","category":"factual"`
	tests := []struct{ name, input, want string }{
		{"bad json", ok + "\n{", "line 2: "},
		{"unknown field", ok + "\n" + line(ans+`,"gold_headng":"h"`), `line 2: json: unknown field "gold_headng"`},
		{"two values", ok + " " + ok, "line 1: more than one JSON value"},
		{"duplicate id", ok + "\n\n" + ok, "line 3: duplicate id q1 (first on line 1)"},
		{"empty id", `{"id":" ","question":"x","expect":"refuse","reasons":["empty_retrieval"],"category":"off_domain"}`, "line 1: id is empty"},
		{"empty question", ok + "\n" + `{"id":"q","question":"  ",` + ans + `}`, "line 2: q: question has 0 characters"},
		{"long question", `{"id":"q","question":"` + strings.Repeat("é", 1001) + `",` + ans + `}`, "line 1: q: question has 1001 characters"},
		{"bad expect", line(`"expect":"maybe","category":"factual"`), `line 1: q: expect must be answer or refuse, not "maybe"`},
		{"unknown category", line(`"expect":"refuse","reasons":["empty_retrieval"],"category":"trivia"`), `line 1: q: unknown category "trivia"`},
		{"category disagrees", line(`"expect":"refuse","reasons":["empty_retrieval"],"category":"factual"`), "line 1: q: category factual expects answer"},
		{"unknown reason", line(`"expect":"refuse","reasons":["nope"],"category":"off_domain"`), `line 1: q: unknown refusal reason "nope"`},
		{"refusal without reasons", line(`"expect":"refuse","reasons":[],"category":"off_domain"`), "line 1: q: a refusal needs its reasons"},
		{"answer with reasons", line(ans + `,"reasons":["empty_retrieval"]`), "line 1: q: an answer takes no reasons"},
		{"answer without terms", line(`"expect":"answer","gold_chapter":"c","gold_heading":"h","category":"factual"`), "line 1: q: an answer needs answer_terms"},
		{"blank answer term", line(`"expect":"answer","answer_terms":["a"," | "],"gold_chapter":"c","gold_heading":"h","category":"factual"`), `line 1: q: empty answer_terms entry " | "`},
		{"answer without gold heading", line(`"expect":"answer","answer_terms":["a"],"gold_chapter":"c","category":"factual"`), "line 1: q: an answer without selected_text needs gold_chapter and gold_heading"},
		{"answer without gold chapter", line(`"expect":"answer","answer_terms":["a"],"gold_heading":"h","category":"factual"`), "needs gold_chapter and gold_heading"},
		{"selected category without selection", line(`"expect":"answer","answer_terms":["a"],"category":"selected_sufficient"`), "line 1: q: category selected_sufficient needs selected_text"},
		{"selection outside the selected categories", line(ans + `,"selected_text":"t"`), "line 1: q: category factual takes no selected_text"},
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
}

// results builds n results of a category with the first `correct` right.
func results(category, expect string, correct, n int) []Result {
	var rs []Result
	for i := range n {
		r := Result{ID: fmt.Sprintf("%s-%d", category, i), Category: category, Expect: expect, Got: expect, Correct: i < correct}
		if expect == "refuse" {
			r.RefusalReason = "empty_retrieval"
		}
		rs = append(rs, r)
	}
	return rs
}

func TestChecks(t *testing.T) {
	var rs []Result
	rs = append(rs, results("factual", "answer", 17, 20)...)              // 85%: passes
	rs = append(rs, results("off_domain", "refuse", 19, 20)...)           // 95%: fails the 100% bar
	rs = append(rs, results("out_of_scope_pattern", "refuse", 20, 20)...) // 39/40 refusals: passes 97%
	rs = append(rs, results("selected_sufficient", "answer", 9, 10)...)
	rs = append(rs, results("selected_insufficient", "refuse", 10, 10)...) // 19/20 together: passes
	rep := &Report{Results: rs}
	got := map[string]bool{}
	for _, c := range rep.Checks() {
		got[c.Name] = c.Passed
	}
	// results() answers as expected, so the misses of answerable
	// categories are wrong answers: 3 + 1 of 90 questions, 4.4%.
	want := map[string]bool{
		"worded answerable correct": true, "wrong answers": false, "refusals correct": true,
		"off_domain correct": false, "selected-text correct": true,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("checks %v\nwant   %v", got, want)
	}
	if rep.Passed() {
		t.Error("report passed with off_domain below 100%")
	}

	for wrong, pass := range map[int]bool{2: true, 3: false} {
		rep = &Report{Results: append(results("factual", "answer", 100-wrong, 100-wrong), results("definition", "answer", 0, wrong)...)}
		for _, c := range rep.Checks() {
			if c.Name == "wrong answers" && (c.Passed != pass || c.Correct != wrong) {
				t.Errorf("%d wrong of 100 against the 2%% bar: %+v", wrong, c)
			}
		}
	}
	rep = &Report{Results: results("factual", "answer", 8, 10)}
	if rep.Passed() {
		t.Error("80% worded passed the 85% bar")
	}
}

func TestOutOfScopeAndLatency(t *testing.T) {
	rs := results("out_of_scope_pattern", "refuse", 5, 5)
	rs[0].RefusalReason, rs[1].RefusalReason, rs[2].RefusalReason = "out_of_scope", "out_of_scope", "insufficient_context"
	rs[4].Got, rs[4].RefusalReason = "answer", ""
	for i := range rs {
		rs[i].Latency = time.Duration(i+1) * 10 * time.Millisecond
	}
	for i := 0; i < 15; i++ { // 20 results: 10..200 ms
		rs = append(rs, Result{ID: fmt.Sprint("f", i), Category: "factual", Expect: "answer", Latency: time.Duration(i+6) * 10 * time.Millisecond})
	}
	rep := &Report{Results: rs}
	o := rep.OutOfScope()
	if o.Total != 5 || o.WithOutOfScope != 2 || o.Answered != 1 || fmt.Sprint(o.OtherReasons) != "map[empty_retrieval:1 insufficient_context:1]" {
		t.Errorf("out of scope %+v", o)
	}
	med, p95 := rep.Latency()
	if med != 100*time.Millisecond || p95 != 190*time.Millisecond {
		t.Errorf("latency median %v p95 %v, want 100ms 190ms", med, p95)
	}
	if med, p95 := (&Report{}).Latency(); med != 0 || p95 != 0 {
		t.Errorf("empty report latency %v %v", med, p95)
	}
}

func goldenReport() *Report {
	return &Report{Results: []Result{
		{ID: "dev-001", Category: "factual", Expect: "answer", Got: "answer", Correct: true, MaxScore: 0.82, Latency: 40 * time.Millisecond},
		{ID: "dev-004", Category: "factual", Expect: "answer", Got: "answer", Why: `missing term "10 cm"`, MaxScore: 0.77, Latency: 55 * time.Millisecond},
		{ID: "dev-020", Category: "definition", Expect: "answer", Got: "answer", Why: "no source at module-1/x › Heading (got: module-1/y › Other)", MaxScore: 0.74, Latency: 61 * time.Millisecond},
		{ID: "dev-030", Category: "procedural", Expect: "answer", Got: "refuse", RefusalReason: "empty_retrieval", Why: "refused: empty_retrieval", Latency: 12 * time.Millisecond},
		{ID: "dev-070", Category: "off_domain", Expect: "refuse", Got: "refuse", RefusalReason: "empty_retrieval", Correct: true, Latency: 9 * time.Millisecond},
		{ID: "dev-071", Category: "off_domain", Expect: "refuse", Got: "answer", Why: "answered a question that must be refused", MaxScore: 0.71, Latency: 80 * time.Millisecond},
		{ID: "dev-080", Category: "out_of_scope_pattern", Expect: "refuse", Got: "refuse", RefusalReason: "out_of_scope", Correct: true, Latency: 20 * time.Millisecond},
		{ID: "dev-081", Category: "out_of_scope_pattern", Expect: "refuse", Got: "refuse", RefusalReason: "insufficient_context", Correct: true, Latency: 21 * time.Millisecond},
		{ID: "dev-110", Category: "selected_sufficient", Expect: "answer", Got: "answer", Correct: true, Latency: 30 * time.Millisecond},
		{ID: "dev-120", Category: "selected_insufficient", Expect: "refuse", Got: "refuse", RefusalReason: "selected_text_insufficient", Correct: true, Latency: 8 * time.Millisecond},
	}}
}

func TestWriteTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport().WriteText(&buf, true); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "report.golden")
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
		t.Errorf("WriteText =\n%s\nwant (%s)\n%s", buf.String(), golden, want)
	}

	var quiet bytes.Buffer
	goldenReport().WriteText(&quiet, false)
	if strings.Contains(quiet.String(), "not correct") || !strings.HasPrefix(buf.String(), quiet.String()) {
		t.Errorf("non-verbose output must be the verbose one without the wrong list:\n%s", quiet.String())
	}
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := goldenReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"questions", "categories", "overall", "checks", "passed", "out_of_scope_pattern", "latency_median_ms", "latency_p95_ms", "results"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	var back JSONReport
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Questions != 10 || back.Passed || back.Overall.All != (Figure{Correct: 6, Total: 10, Rate: 0.6, Wrong: 3, WrongRate: 0.3, Score: 0.3}) || back.LatencyMedianMS != 21 ||
		back.Results[1].Why != `missing term "10 cm"` || back.OutOfScope.WithOutOfScope != 1 {
		t.Errorf("round trip %+v", back)
	}
	res := m["results"].([]any)[3].(map[string]any)
	for _, k := range []string{"id", "category", "expect", "got", "refusal_reason", "correct", "why", "max_source_score", "latency_ns"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result JSON lacks %q: %v", k, res)
		}
	}
	buf.Reset()
	if err := (&Report{}).WriteJSON(&buf); err != nil || !strings.Contains(buf.String(), `"results": []`) {
		t.Errorf("empty report: %v\n%s", err, buf.String())
	}
}

func TestDevQuestionsLoad(t *testing.T) {
	path := filepath.Join("..", "..", "shared", "eval", "dev-questions.jsonl")
	sharedtest.Require(t, path)
	qs, err := ReadQuestionsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 125 {
		t.Errorf("loaded %d questions, want 125", len(qs))
	}
	perCat := map[string]int{}
	for _, q := range qs {
		perCat[q.Category]++
	}
	for _, c := range Categories {
		if perCat[c.Name] == 0 {
			t.Errorf("no %s question", c.Name)
		}
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

// The labelled questions write a heading as its Markdown source; the
// chunker keeps the heading's text. Both sides drop the anchor a
// Docusaurus ({#id}) or Hugging Face doc-builder ([[id]]) heading ends in,
// and the backticks of code spans.
func TestNormHeadingMatchesAcrossDialects(t *testing.T) {
	tests := []struct{ gold, chunk string }{
		{"Attention masks[[attention-masks]]", "Attention masks"},
		{"Attention masks", "Attention masks[[attention-masks]]"},
		{"Attention masks [[attention-masks]]", "attention masks {#attention-masks}"},
		{"drift {#drift}", "Drift"},
		{"Using the `huggingface_hub` Python library[[using-the-huggingfacehub-python-library]]", "Using the huggingface_hub Python library"},
		{"Why Blocks 🧱?[[why-blocks-]]", "Why Blocks 🧱?"},
		{"From `Dataset`s to `DataFrame`s and back", "From Datasets to DataFrames and back"},
		{"**Bold**  heading", "bold heading"},
		{"<a name=\"Pauc\">`Pauc`</a>: paucal number", "Pauc: paucal number"},
		{"What you _can_ do", "What you can do"},
		{"A *very* __strong__ ***case***", "a very strong case"},
		{"Adding interactivity {/*adding-interactivity*/}", "Adding interactivity"},
		{"`snake_case` names", "snake_case names"},
	}
	for _, tt := range tests {
		if normHeading(tt.gold) != normHeading(tt.chunk) {
			t.Errorf("normHeading(%q) = %q, normHeading(%q) = %q: want equal", tt.gold, normHeading(tt.gold), tt.chunk, normHeading(tt.chunk))
		}
	}
	for _, pair := range [][2]string{
		{"Attention masks", "Attention"},
		{"Lists [[1, 2]] of ids", "Lists of ids"}, // [[…]] inside the text is text
		{"a_b", "ab"},
		{"a < b > c", "a c"}, // comparison signs are text, not a tag
	} {
		if normHeading(pair[0]) == normHeading(pair[1]) {
			t.Errorf("normHeading(%q) = normHeading(%q): want different", pair[0], pair[1])
		}
	}
	q := Question{ID: "hf", Expect: "answer", Category: "factual", GoldChapter: "chapter2/5",
		GoldHeading: "Attention masks[[attention-masks]]", AnswerTerms: []string{"padding"}}
	hf := rag.Chunk{ID: "hf1", ChapterPath: "chapter2/5", SectionHeading: "Attention masks",
		Headings: []rag.Heading{{Level: 2, Text: "Attention masks", Anchor: "attention-masks"}}}
	find := func(id string) (rag.Chunk, bool) { return hf, id == hf.ID }
	resp := rag.ChatResponse{Answer: "Mask the padding.", Sources: []rag.Source{{ChunkID: "hf1", SectionHeading: "Attention masks", Score: 0.9}}}
	if r := Score(q, resp, find); !r.Correct {
		t.Errorf("a source under the stripped heading is not the gold one: %s", r.Why)
	}
	if !holdsAnswer(q, hf) {
		t.Error("holdsAnswer: the chunk under the stripped heading does not hold the answer")
	}
}

// The self-check counts a definition question answered from a section
// that defines the term as its own, from any other as another, and a
// refusal as neither.
func TestRunSelfCheck(t *testing.T) {
	chunks := map[string]rag.Chunk{
		"g": {ID: "g", ChapterPath: "glossary"},
		"c": {ID: "c", ChapterPath: "ros/topics"},
	}
	find := func(id string) (rag.Chunk, bool) { c, ok := chunks[id]; return c, ok }
	answers := map[string]rag.ChatResponse{
		"What is topic?":   {Answer: "A topic is ...", Sources: []rag.Source{{ChunkID: "c", SectionHeading: "Topics"}}},
		"What is node?":    {Answer: "A node ...", Sources: []rag.Source{{ChunkID: "g", SectionHeading: "N"}}},
		"What is service?": rag.Refusal(rag.InsufficientContext, "not enough", ""),
	}
	tutor := tutorFunc(func(_ context.Context, req rag.ChatRequest) rag.ChatResponse { return answers[req.Question] })
	probes := []answer.Probe{
		{Question: "What is topic?", Sections: []string{"glossary › T", "ros/topics › Topics"}},
		{Question: "What is node?", Sections: []string{"ros/topics › Nodes"}},
		{Question: "What is service?", Sections: []string{"ros/topics › Services"}},
	}
	sc, err := RunSelfCheck(t.Context(), tutor, probes, find)
	if err != nil {
		t.Fatal(err)
	}
	if want := (SelfCheck{Questions: 3, Own: 1, Other: 1}); sc != want {
		t.Errorf("self-check %+v, want %+v", sc, want)
	}
	if got := sc.String(); !strings.Contains(got, "3 questions") || !strings.Contains(got, "33.3% answered from their own section, 33.3% from another") {
		t.Errorf("line %q", got)
	}
}

type tutorFunc func(context.Context, rag.ChatRequest) rag.ChatResponse

func (f tutorFunc) Ask(ctx context.Context, req rag.ChatRequest, _ rag.Stream) (rag.ChatResponse, error) {
	return f(ctx, req), nil
}

func TestOwnShareUpper(t *testing.T) {
	tests := []struct {
		own, questions int
		floor          float64
		fails          bool
	}{
		{0, 0, 0.6, false},  // no derived question: nothing to judge
		{0, 1, 0.6, false},  // one miss is no evidence
		{4, 8, 0.6, false},  // 50% of 8 could well be 60%
		{12, 40, 0.6, true}, // 30% of 40 could not
		{60, 100, 0.6, false},
		{40, 100, 0.6, true},
		{100, 100, 0.95, false},
	}
	for _, tt := range tests {
		s := SelfCheck{Questions: tt.questions, Own: tt.own}
		upper := s.OwnShareUpper(1.96)
		if upper < s.OwnShare() || upper > 1 {
			t.Errorf("%d of %d: upper bound %.3f outside [share %.3f, 1]", tt.own, tt.questions, upper, s.OwnShare())
		}
		if got := upper < tt.floor; got != tt.fails {
			t.Errorf("%d of %d: upper bound %.3f, below %.2f = %v, want %v", tt.own, tt.questions, upper, tt.floor, got, tt.fails)
		}
	}
}

// The self-check asks at most n of the derived questions, spread over the
// book from its first, whatever the book gives.
func TestSampleProbes(t *testing.T) {
	probes := make([]answer.Probe, 1000)
	for i := range probes {
		probes[i].Question = fmt.Sprintf("What is t%d?", i)
	}
	for _, tc := range []struct{ have, n, want int }{{1000, 300, 300}, {1000, 1000, 1000}, {10, 300, 10}, {0, 300, 0}} {
		got := SampleProbes(probes[:tc.have], tc.n)
		if len(got) != tc.want {
			t.Errorf("%d probes, n %d: %d sampled, want %d", tc.have, tc.n, len(got), tc.want)
			continue
		}
		if tc.want > 0 && (got[0].Question != probes[0].Question || got[len(got)-1].Question == probes[0].Question && tc.want > 1) {
			t.Errorf("%d probes, n %d: sample starts %q ends %q", tc.have, tc.n, got[0].Question, got[len(got)-1].Question)
		}
	}
	if got := SampleProbes(probes, 300); got[299].Question != "What is t996?" {
		t.Errorf("last of the sample %q, want one near the book's end", got[299].Question)
	}
}

// The self-check's line counts in words that agree with the count, and a
// book that gives no question prints no share of nothing.
func TestSelfCheckString(t *testing.T) {
	tests := []struct {
		sc   SelfCheck
		want string
	}{
		{SelfCheck{}, "self-check: no question derived: the book sets no term in bold or italics and defines it in a sentence"},
		{SelfCheck{Questions: 1, Own: 1}, "self-check: 1 question derived from the book's definitions; 100.0% answered from their own section, 0.0% from another"},
		{SelfCheck{Questions: 4, Derived: 9, Own: 2, Other: 1}, "self-check: 4 questions derived from the book's definitions (a sample of the 9 it gives); 50.0% answered from their own section, 25.0% from another"},
	}
	for _, tt := range tests {
		if got := tt.sc.String(); got != tt.want {
			t.Errorf("%+v.String() =\n%q, want\n%q", tt.sc, got, tt.want)
		}
	}
}
