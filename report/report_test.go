package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/postgres"
	"github.com/textbook-rag/rag/postgres/pgtest"
	"github.com/textbook-rag/rag/sqlite"
)

// store is a history that keeps feedback and reads exchanges in pages.
type store interface {
	rag.History
	rag.FeedbackStore
	rag.ExchangeReader
}

// stores opens each history store the machine has: SQLite always,
// Postgres when DATABASE_URL is set.
func stores(t *testing.T) map[string]func(t *testing.T) store {
	return map[string]func(t *testing.T) store{
		"sqlite": func(t *testing.T) store {
			h, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			return h
		},
		"postgres": func(t *testing.T) store {
			h, err := postgres.Open(context.Background(), pgtest.SchemaURL(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { h.Close() })
			return h
		},
	}
}

var (
	base     = time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	chapters = []Chapter{
		{ID: "ros2/topics", Title: "Topics", Module: "ROS 2", Path: "ros2/topics"},
		{ID: "ros2/urdf", Title: "URDF", Module: "ROS 2", Path: "ros2/urdf"},
		{ID: "sim/gazebo", Title: "Gazebo", Module: "Simulation", Path: "sim/gazebo"},
	}
	topicsSection = rag.Source{ChunkID: "t1", ModuleID: "ros2", ChapterID: "ros2/topics", SectionHeading: "Publishers", Anchor: "publishers", Score: 0.9, Path: "ros2/topics"}
	nodesSection  = rag.Source{ChunkID: "t2", ModuleID: "ros2", ChapterID: "ros2/topics", SectionHeading: "Nodes", Anchor: "nodes", Score: 0.8, Path: "ros2/topics"}
)

// seeded is what seed wrote that the tests look for.
type seeded struct {
	sessions []string
	log      string
}

// seed writes a small history of three days (and one exchange before
// them) and the matching refusal log.
func seed(t *testing.T, h store) seeded {
	t.Helper()
	ctx := context.Background()
	var s seeded
	var log strings.Builder
	add := func(at time.Time, q string, reason rag.RefusalReason, sources []rag.Source, score *float64) (string, string) {
		sid := uuid.NewString()
		s.sessions = append(s.sessions, sid)
		a := rag.Message{ID: uuid.NewString(), Role: "assistant", Content: "From the book.", Sources: sources, CreatedAt: at}
		if reason != "" {
			a.Content, a.Sources, a.WasRefusal, a.RefusalReason = "Refused.", nil, true, &reason
			ev, _ := json.Marshal(map[string]any{"event": "refusal", "timestamp": at.Format(time.RFC3339), "session_id": sid,
				"question": q, "refusal_reason": reason, "chunks_retrieved": 2, "max_score": score})
			fmt.Fprintf(&log, "%s\n", ev)
		}
		err := h.AppendExchange(ctx, sid, rag.Message{Role: "user", Content: q, CreatedAt: at.Add(-time.Millisecond)}, a)
		if err != nil {
			t.Fatal(err)
		}
		return sid, a.ID
	}
	score := func(f float64) *float64 { return &f }
	add(base.Add(-time.Hour), "Too early: what is a node?", "", []rag.Source{nodesSection}, nil)
	sid, aid := add(base.Add(1*time.Hour), "What is a publisher?", "", []rag.Source{topicsSection, nodesSection}, nil)
	if _, err := h.SetFeedback(ctx, sid, aid, rag.Feedback{Rating: rag.Helpful}); err != nil {
		t.Fatal(err)
	}
	add(base.Add(2*time.Hour), "How do publishers queue messages?", "", []rag.Source{topicsSection, topicsSection}, nil)
	add(base.Add(3*time.Hour), "What does a node do?", "", []rag.Source{nodesSection}, nil)
	add(base.Add(4*time.Hour), "How do I bake banana bread?", rag.EmptyRetrieval, nil, score(0.21))
	add(base.Add(5*time.Hour), "how do I bake  banana bread?", rag.EmptyRetrieval, nil, score(0.31))
	day2 := base.Add(24 * time.Hour)
	sid, aid = add(day2.Add(1*time.Hour), "Can a topic have two publishers?", "", []rag.Source{topicsSection}, nil)
	if _, err := h.SetFeedback(ctx, sid, aid, rag.Feedback{Rating: rag.NotHelpful, Comment: "It does not say."}); err != nil {
		t.Fatal(err)
	}
	add(day2.Add(2*time.Hour), "Banana bread recipe with walnuts", rag.EmptyRetrieval, nil, nil)
	add(day2.Add(3*time.Hour), "PID tuning for my arm", rag.OutOfScope, nil, score(0.72))
	add(day2.Add(4*time.Hour), "Best PID gains for a servo", rag.OutOfScope, nil, score(0.75))
	add(day2.Add(5*time.Hour), "PID tuning with Ziegler-Nichols", rag.OutOfScope, nil, score(0.7))
	add(base.Add(3*24*time.Hour), "Too late: banana?", rag.EmptyRetrieval, nil, nil)
	s.log = log.String() + "not json\n" + `{"event":"other"}` + "\n"
	return s
}

func TestReport(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			h := open(t)
			s := seed(t, h)
			opts := Options{From: base, To: base.Add(3 * 24 * time.Hour), Chapters: chapters, ShowQuestions: true,
				RefusalLog: strings.NewReader(s.log), PageSize: 2}
			r, err := Build(context.Background(), h, opts)
			if err != nil {
				t.Fatal(err)
			}
			f := func(x float64) *float64 { return &x }
			want := &Report{
				From: base, To: base.Add(72 * time.Hour), QuestionsShown: true, RefusalLog: true,
				Totals: Totals{Questions: 10, Answers: 4, Refusals: 6, Helpful: 1, NotHelpful: 1, LoggedRefusals: 6},
				Days:   []Day{{"2025-03-03", 5, 3, 2}, {"2025-03-04", 5, 1, 4}, {"2025-03-05", 0, 0, 0}},
				RefusalsByReason: []ReasonCount{
					{rag.EmptyRetrieval, 3, 3}, {rag.OutOfScope, 3, 3},
					{rag.InsufficientContext, 0, 0}, {rag.SelectedTextInsufficient, 0, 0},
				},
				RefusedTopics: []Topic{
					{Words: []string{"bake", "banana", "bread"}, Count: 3, Reason: rag.EmptyRetrieval, Verdict: "the book does not cover it",
						Examples: []Example{{"How do I bake banana bread?", 2}, {"Banana bread recipe with walnuts", 1}}, BestScore: f(0.31)},
					{Words: []string{"pid", "tuning"}, Count: 3, Reason: rag.OutOfScope, Verdict: "it is outside the course's scope",
						Examples: []Example{{"PID tuning for my arm", 1}, {"Best PID gains for a servo", 1}, {"PID tuning with Ziegler-Nichols", 1}}, BestScore: f(0.75)},
				},
				NotHelpful: []Rated{{At: base.Add(25 * time.Hour), Question: "Can a topic have two publishers?", Comment: "It does not say.",
					Section: &Section{ChapterID: "ros2/topics", Chapter: "Topics", Heading: "Publishers", Path: "ros2/topics", Anchor: "publishers"}}},
				TopSections: []SectionCount{
					{Section{ChapterID: "ros2/topics", Chapter: "Topics", Heading: "Publishers", Path: "ros2/topics", Anchor: "publishers"}, 3},
					{Section{ChapterID: "ros2/topics", Chapter: "Topics", Heading: "Nodes", Path: "ros2/topics", Anchor: "nodes"}, 2},
				},
				UnquotedChapters: chapters[1:],
			}
			if !reflect.DeepEqual(r, want) {
				got, _ := json.MarshalIndent(r, "", " ")
				exp, _ := json.MarshalIndent(want, "", " ")
				t.Fatalf("report:\n%s\nwant:\n%s", got, exp)
			}
			if got := r.RefusedTopics[0].Summary(); got != "students asked about bake banana bread 3 times; the book does not cover it" {
				t.Errorf("summary %q", got)
			}

			// One page or many: the same report.
			opts.PageSize, opts.RefusalLog = 1000, strings.NewReader(s.log)
			if r2, err := Build(context.Background(), h, opts); err != nil || !reflect.DeepEqual(r2, r) {
				t.Errorf("with one page: %v, %+v", err, r2)
			}

			var text bytes.Buffer
			if err := WriteText(&text, r, "Sample"); err != nil {
				t.Fatal(err)
			}
			for _, line := range []string{
				"10 questions: 4 answered, 6 refused (60%)",
				"1. Students asked about bake banana bread 3 times; the book does not cover it (best match in the book: 0.31).",
				`"How do I bake banana bread?" ×2`,
				"Comment: It does not say.",
				"URDF (ros2/urdf)",
			} {
				if !strings.Contains(text.String(), line) {
					t.Errorf("text report lacks %q:\n%s", line, text.String())
				}
			}
			js, _ := json.Marshal(r)
			for _, sid := range s.sessions {
				if bytes.Contains(js, []byte(sid)) || strings.Contains(text.String(), sid) {
					t.Fatalf("the report shows session id %s", sid)
				}
			}
		})
	}
}

// TestReportHidesQuestions: with question texts off, neither a question
// nor a comment is in any form of the report, and small topics are
// counted as other.
func TestReportHidesQuestions(t *testing.T) {
	h := stores(t)["sqlite"](t)
	s := seed(t, h)
	r, err := Build(context.Background(), h, Options{From: base, To: base.Add(72 * time.Hour), Chapters: chapters, RefusalLog: strings.NewReader(s.log)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RefusedTopics) != 2 || r.RefusedTopics[0].Count != 3 || len(r.RefusedTopics[0].Examples) != 0 {
		t.Fatalf("topics %+v", r.RefusedTopics)
	}
	if len(r.NotHelpful) != 1 || r.NotHelpful[0].Section == nil {
		t.Fatalf("not helpful %+v", r.NotHelpful)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, "Sample"); err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(r)
	for _, secret := range []string{"How do I bake", "Ziegler", "It does not say", "two publishers"} {
		if bytes.Contains(js, []byte(secret)) || strings.Contains(text.String(), secret) {
			t.Errorf("hidden text %q is in the report", secret)
		}
	}
	// Topics shared by fewer than MinTopicSize questions are "other".
	r, err = Build(context.Background(), h, Options{From: base.Add(24 * time.Hour), To: base.Add(72 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.RefusedTopics) != 1 || r.OtherRefusals != 1 {
		t.Fatalf("topics %+v, other %d", r.RefusedTopics, r.OtherRefusals)
	}
}

func TestReportRange(t *testing.T) {
	h := stores(t)["sqlite"](t)
	if _, err := Build(context.Background(), h, Options{From: base, To: base}); rag.ErrorCode(err) != rag.EINVALID {
		t.Fatalf("empty range: %v", err)
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"How do I bake banana bread?", []string{"bake", "banana", "bread"}},
		{"What are the joints of a URDF? joints!", []string{"joint", "urdf"}},
		{"Explain this, please", nil},
		{"ROS 2 vs ROS 1", []string{"ros", "vs"}},
		{"Ziegler-Nichols", []string{"ziegler", "nichol"}},
	}
	for _, tt := range tests {
		if got := words(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The book's self-check goes into the report as it is, in every form.
func TestReportSelfCheck(t *testing.T) {
	h := stores(t)["sqlite"](t)
	sc := &SelfCheck{Questions: 40, Own: 30, Other: 2}
	r, err := Build(context.Background(), h, Options{From: base, To: base.Add(time.Hour), SelfCheck: sc})
	if err != nil {
		t.Fatal(err)
	}
	if r.SelfCheck != sc {
		t.Fatalf("self-check %+v", r.SelfCheck)
	}
	var text bytes.Buffer
	if err := WriteText(&text, r, "Sample"); err != nil {
		t.Fatal(err)
	}
	if want := "Self-check: 40 questions derived from the book's definitions; 75% answered from their own section, 5% from another"; !strings.Contains(text.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, text.String())
	}
	js, _ := json.Marshal(r)
	if !bytes.Contains(js, []byte(`"self_check":{"questions":40,"own_section":30,"other_section":2}`)) {
		t.Errorf("JSON report: %s", js)
	}
}

// TestVerdict: a topic refused as insufficient_context is "mentioned"
// only when the book uses every word of it; otherwise the verdict names
// the words the book never uses, and with no book text it claims no
// mention.
func TestVerdict(t *testing.T) {
	book := newVocabulary([]string{"Record the data of a run with ros2 bag record.", "Topics carry data between nodes."})
	tests := []struct {
		name   string
		reason rag.RefusalReason
		topic  string
		vocab  vocabulary
		want   string
	}{
		{"every word in the book", rag.InsufficientContext, "record data", book, "the book mentions it, but not enough to answer"},
		{"a word the book never uses", rag.InsufficientContext, "record data rosbag", book, "the book never uses the word “rosbag”; its nearest passages do not answer it"},
		{"two words the book never uses", rag.InsufficientContext, "rosbag replay", book, "the book never uses the words “rosbag”, “replay”; its nearest passages do not answer it"},
		{"no book to check", rag.InsufficientContext, "record data", vocabulary{}, "the book's nearest passages do not answer it"},
		{"another reason", rag.EmptyRetrieval, "rosbag", book, "the book does not cover it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verdict(tt.reason, words(tt.topic), tt.vocab); got != tt.want {
				t.Errorf("verdict = %q, want %q", got, tt.want)
			}
			if got := verdict(tt.reason, words(tt.topic), tt.vocab); tt.vocab.docs > 0 && strings.Contains(got, "mentions") {
				for _, w := range words(tt.topic) {
					if tt.vocab.df[w] == 0 {
						t.Errorf("%q says the book mentions %q, which it never uses", got, w)
					}
				}
			}
		})
	}
}

// TestReportCounts: the text and the page say "1 question", never "1
// questions", and "0 questions".
func TestReportCounts(t *testing.T) {
	day := []Day{{"2025-03-03", 1, 1, 0}}
	tests := []struct {
		totals Totals
		days   []Day
		text   []string
		page   []string
	}{
		{Totals{Questions: 1, Answers: 1}, day,
			[]string{"1 question: 1 answered, 0 refused (0%)"},
			[]string{"<span>question</span>", "busiest day: 1 question<"}},
		{Totals{Questions: 0}, nil,
			[]string{"0 questions: 0 answered, 0 refused (0%)"},
			[]string{"<span>questions</span>"}},
		{Totals{Questions: 2, Refusals: 2, LoggedRefusals: 1}, []Day{{"2025-03-03", 2, 0, 2}},
			[]string{"2 questions: 0 answered, 2 refused (100%)", "Refusal log: 1 refusal in the range"},
			[]string{"<span>questions</span>", "busiest day: 2 questions<"}},
	}
	for _, tt := range tests {
		r := &Report{From: base, To: base.Add(24 * time.Hour), Totals: tt.totals, Days: tt.days, RefusalLog: tt.totals.LoggedRefusals > 0}
		var text, page bytes.Buffer
		if err := WriteText(&text, r, "Sample"); err != nil {
			t.Fatal(err)
		}
		if err := (&Source{Title: "Sample"}).WriteHTML(&page, r, "1d"); err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.text {
			if !strings.Contains(text.String(), want) {
				t.Errorf("text report lacks %q:\n%s", want, text.String())
			}
		}
		for _, want := range tt.page {
			if !strings.Contains(page.String(), want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if regexp.MustCompile(`\b1 (questions|refusals)\b`).MatchString(text.String() + page.String()) {
			t.Errorf("a count of 1 with a plural noun:\n%s", text.String())
		}
	}
}

// TestTitledTopic: a topic refused as insufficient_context that a
// section's title names ("install jupyter": "Installing Jupyter"; "sense
// think act": "The Sense–Think–Act Loop", whatever its dashes; "myst": a
// chapter "MyST") is filed as one the book has a page on, which the tutor
// did not answer from: a signal to the team, not "the book mentions it".
// A topic no title names keeps the vocabulary's verdict.
func TestTitledTopic(t *testing.T) {
	opts := Options{
		BookTexts: []string{"Install Jupyter with pip.", "The sense think act loop runs each tick.", "MyST extends Markdown.", "Topics carry data."},
		Sections: []Section{
			{ChapterID: "setup", Chapter: "Setup", Heading: "Installing Jupyter", Path: "setup", Anchor: "installing-jupyter"},
			{ChapterID: "loop", Chapter: "Control", Heading: "The Sense\u2013Think\u2013Act Loop", Path: "loop", Anchor: "loop"},
			{ChapterID: "ros", Chapter: "ROS", Heading: "Topics", Path: "ros", Anchor: "topics"},
		},
		Chapters:      []Chapter{{ID: "myst", Title: "MyST", Path: "myst"}},
		ShowQuestions: true,
	}
	b := newBuilder(opts)
	for _, q := range []string{"How do I install jupyter?", "What is the sense-think-act loop?", "What is MyST?", "How does data carry topics across the wire?"} {
		b.refused = append(b.refused, refused{text: q, words: words(q), reason: string(rag.InsufficientContext)})
	}
	b.topics()
	got := map[string]Topic{}
	for _, tp := range b.r.RefusedTopics {
		got[strings.Join(tp.Words, " ")] = tp
	}
	for topic, heading := range map[string]string{"install jupyter": "Installing Jupyter", "sense act loop": "The Sense\u2013Think\u2013Act Loop", "myst": "MyST"} {
		tp, ok := got[topic]
		if !ok {
			t.Errorf("no topic %q among %v", topic, got)
			continue
		}
		if tp.Titled == nil || tp.Titled.Heading != heading || strings.Contains(tp.Verdict, "mentions") || !strings.Contains(tp.Verdict, heading) {
			t.Errorf("topic %q: verdict %q, titled %+v; want the section %q named", topic, tp.Verdict, tp.Titled, heading)
		}
	}
	for topic, tp := range got {
		if strings.Contains(topic, "wire") && (tp.Titled != nil || strings.Contains(tp.Verdict, "has a section")) {
			t.Errorf("topic %q no title names: verdict %q", topic, tp.Verdict)
		}
	}
}
