// Package report is the course team's view of the tutor: what students
// asked, what was refused and why, which refused questions share a topic,
// which answers readers marked not helpful, and which parts of the book
// the answers quote or never quote. It reads the stored history in pages
// (memory grows with the refused questions kept for grouping, not with
// the history) and, when there is one, the refusal log file.
//
// A report never holds a session id; with Options.ShowQuestions off it
// holds no question or comment text either.
package report

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/textbook-rag/rag"
)

// Chapter is one chapter of the served book, in book order.
type Chapter struct {
	ID     string `json:"chapter_id"`
	Title  string `json:"title"`
	Module string `json:"module"`
	Path   string `json:"path"`
}

// Options say what to report on and how much to show.
type Options struct {
	// From and To bound the report: exchanges answered in [From, To).
	From, To time.Time
	// Chapters is the book's chapter list, for "chapters never quoted".
	Chapters []Chapter
	// BookTexts are the book's passages (chunk texts): words the book
	// rarely uses weigh more when refused questions are grouped.
	BookTexts []string
	// Sections are the book's sections (chapter and heading): a topic
	// refused as insufficient_context that a section's or a chapter's
	// title names is one the book has a page on.
	Sections []Section
	// ShowQuestions puts question texts and comments in the report. Off,
	// the report shows counts, sections and topic words only, and a topic
	// only when at least MinTopicSize questions share it.
	ShowQuestions bool
	// RefusalLog, when set, is the refusal log (JSON lines): its events in
	// the range are counted by reason and give each refused topic the
	// best retrieval score the book had for it.
	RefusalLog io.Reader
	// PageSize is how many exchanges are read at a time (default 1000).
	PageSize int
	// SelfCheck, when known, goes into the report as it is.
	SelfCheck *SelfCheck
}

// Limits of what a report lists.
const (
	DefaultPageSize = 1000
	// MaxTopics, MaxSections and MaxNotHelpful bound the lists; their
	// totals are still counted.
	MaxTopics     = 20
	MaxSections   = 10
	MaxNotHelpful = 50
	// MaxExamples is how many example questions a topic shows.
	MaxExamples = 3
	// MinTopicSize is the smallest topic shown when question texts are
	// hidden: words shared by fewer students could point at one of them.
	MinTopicSize = 3
)

// Report is the course team's view of one time range.
type Report struct {
	From           time.Time `json:"from"`
	To             time.Time `json:"to"`
	QuestionsShown bool      `json:"questions_shown"`
	Totals         Totals    `json:"totals"`
	Days           []Day     `json:"days"`
	// RefusalsByReason lists every reason, largest first.
	RefusalsByReason []ReasonCount `json:"refusals_by_reason"`
	// RefusedTopics are the refused questions grouped by what they were
	// about, largest first.
	RefusedTopics []Topic `json:"refused_topics"`
	// OtherRefusals counts refused questions in topics not listed.
	OtherRefusals int `json:"other_refusals"`
	// NotHelpful lists answers marked not helpful, newest first.
	NotHelpful []Rated `json:"not_helpful"`
	// TopSections are the sections answers quote most, with counts.
	TopSections []SectionCount `json:"top_sections"`
	// UnquotedChapters are the book's chapters no answer quoted.
	UnquotedChapters []Chapter `json:"unquoted_chapters"`
	// RefusalLog says whether a refusal log was read.
	RefusalLog bool `json:"refusal_log_read"`
	// SelfCheck is how the answerer did on questions derived from the
	// book's own definitions when the book was last ingested or served;
	// null when not known.
	SelfCheck *SelfCheck `json:"self_check"`
}

// SelfCheck counts the questions derived from the book's definitions
// ("What is X?") and how they were answered: citing a section that
// defines X (Own), citing other sections only (Other), or refused (the
// rest). A book whose style the answerer reads well answers most from
// their own section and few from another.
type SelfCheck struct {
	Questions int `json:"questions"`
	Own       int `json:"own_section"`
	Other     int `json:"other_section"`
}

// OwnPercent and OtherPercent are Own and Other as percentages of the
// questions, for display.
func (s SelfCheck) OwnPercent() string   { return percent(s.Own, s.Questions) }
func (s SelfCheck) OtherPercent() string { return percent(s.Other, s.Questions) }

// Totals are the range's counts.
type Totals struct {
	Questions  int `json:"questions"`
	Answers    int `json:"answers"`
	Refusals   int `json:"refusals"`
	Helpful    int `json:"helpful"`
	NotHelpful int `json:"not_helpful"`
	// LoggedRefusals counts the refusal log's events in the range (the
	// log also holds refusals of `textbook-rag ask`, which are not stored).
	LoggedRefusals int `json:"logged_refusals"`
}

// Day is one UTC day's counts.
type Day struct {
	Date      string `json:"date"` // 2006-01-02
	Questions int    `json:"questions"`
	Answers   int    `json:"answers"`
	Refusals  int    `json:"refusals"`
}

// ReasonCount is how often one refusal reason was given.
type ReasonCount struct {
	Reason rag.RefusalReason `json:"reason"`
	Count  int               `json:"count"`
	// Logged is the count in the refusal log, when one was read.
	Logged int `json:"logged"`
}

// Topic is a group of refused questions that share their most
// informative words.
type Topic struct {
	Words []string `json:"words"`
	Count int      `json:"count"`
	// Reason is the group's most common refusal reason, and Verdict what
	// it says about the book.
	Reason  rag.RefusalReason `json:"reason"`
	Verdict string            `json:"verdict"`
	// Titled is the book's section whose title names the topic, when the
	// tutor refused it as insufficient_context all the same (null else).
	Titled *Section `json:"titled_section"`
	// Examples are the most asked questions of the group (empty when
	// question texts are hidden).
	Examples []Example `json:"examples"`
	// BestScore is the best retrieval score the book had for any of the
	// group's questions, from the refusal log (null when unknown): near
	// the confidence threshold, the book touches the topic thinly.
	BestScore *float64 `json:"best_score"`
}

// Example is one refused question and how many times it was asked.
type Example struct {
	Question string `json:"question"`
	Count    int    `json:"count"`
}

// Rated is an answer a reader marked not helpful.
type Rated struct {
	At       time.Time `json:"at"`
	Question string    `json:"question,omitempty"`
	Section  *Section  `json:"section"`
	Comment  string    `json:"comment,omitempty"`
}

// Section is a quoted section of the book.
type Section struct {
	ChapterID string `json:"chapter_id"`
	Chapter   string `json:"chapter"`
	Heading   string `json:"heading"`
	Path      string `json:"path"`
	Anchor    string `json:"anchor"`
}

// SectionCount is how many answers quoted a section.
type SectionCount struct {
	Section
	Count int `json:"count"`
}

// Verdicts say what a refusal reason means for the book.
var verdicts = map[rag.RefusalReason]string{
	rag.EmptyRetrieval:           "the book does not cover it",
	rag.InsufficientContext:      "the book mentions it, but not enough to answer",
	rag.OutOfScope:               "it is outside the course's scope",
	rag.SelectedTextInsufficient: "the passages readers selected did not answer it",
}

// verdict says what a topic's refusal reason means for the book. A
// question refused as insufficient_context found passages near it, which
// need not use its words: the topic is "mentioned" only when the book
// uses every word of it. Otherwise the verdict names the words the book
// never uses ("record data rosbag": the book has no "rosbag"), or, with
// no book text to check, claims no mention.
func verdict(reason rag.RefusalReason, topic []string, vocab vocabulary) string {
	if reason != rag.InsufficientContext {
		return verdicts[reason]
	}
	if vocab.docs == 0 {
		return "the book's nearest passages do not answer it"
	}
	var missing []string
	for _, w := range topic {
		if vocab.df[w] == 0 {
			missing = append(missing, "“"+w+"”")
		}
	}
	switch len(missing) {
	case 0:
		return verdicts[reason]
	case 1:
		return "the book never uses the word " + missing[0] + "; its nearest passages do not answer it"
	}
	return "the book never uses the words " + strings.Join(missing, ", ") + "; its nearest passages do not answer it"
}

// Build reads the exchanges of [opts.From, opts.To) from src, page by
// page, and the refusal log, and makes the report.
func Build(ctx context.Context, src rag.ExchangeReader, opts Options) (*Report, error) {
	if !opts.From.Before(opts.To) {
		return nil, rag.Errorf(rag.EINVALID, "the report's range is empty: %s is not before %s",
			opts.From.UTC().Format(time.RFC3339), opts.To.UTC().Format(time.RFC3339))
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	b := newBuilder(opts)
	if opts.RefusalLog != nil {
		if err := b.readLog(opts.RefusalLog); err != nil {
			return nil, err
		}
	}
	var cursor rag.ExchangeCursor
	for {
		page, next, err := src.ExchangePage(ctx, opts.From, opts.To, cursor, opts.PageSize)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		for i := range page {
			b.add(&page[i])
		}
		if len(page) < opts.PageSize {
			break
		}
		cursor = next
	}
	r := b.finish()
	r.SelfCheck = opts.SelfCheck
	return r, nil
}

type sectionKey struct{ chapter, anchor string }

type builder struct {
	opts     Options
	r        *Report
	dayIndex map[string]int
	reasons  map[rag.RefusalReason]*ReasonCount
	refused  []refused
	sections map[sectionKey]*SectionCount
	quoted   map[string]bool
	titles   map[string]string
	// scores maps a logged refusal (session and question) to its
	// max_score; used only to join the log with the history.
	scores map[string]float64
}

func newBuilder(opts Options) *builder {
	from, to := opts.From.UTC(), opts.To.UTC()
	b := &builder{
		opts:     opts,
		r:        &Report{From: from, To: to, QuestionsShown: opts.ShowQuestions},
		dayIndex: map[string]int{},
		reasons:  map[rag.RefusalReason]*ReasonCount{},
		sections: map[sectionKey]*SectionCount{},
		quoted:   map[string]bool{},
		titles:   map[string]string{},
		scores:   map[string]float64{},
	}
	for d := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC); d.Before(to); d = d.AddDate(0, 0, 1) {
		key := d.Format(time.DateOnly)
		b.dayIndex[key] = len(b.r.Days)
		b.r.Days = append(b.r.Days, Day{Date: key})
	}
	for _, reason := range rag.RefusalReasons {
		b.reasons[reason] = &ReasonCount{Reason: reason}
	}
	for _, c := range opts.Chapters {
		b.titles[c.ID] = c.Title
	}
	return b
}

func logKey(session, question string) string { return session + "\x00" + question }

// readLog counts the refusal log's events in the range by reason and
// keeps their scores. Lines that are not refusal events are skipped: the
// log may share a file with other output.
func (b *builder) readLog(r io.Reader) error {
	b.r.RefusalLog = true
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev struct {
			Event     string            `json:"event"`
			Timestamp time.Time         `json:"timestamp"`
			SessionID string            `json:"session_id"`
			Question  string            `json:"question"`
			Reason    rag.RefusalReason `json:"refusal_reason"`
			MaxScore  *float64          `json:"max_score"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Event != "refusal" {
			continue
		}
		// The log's timestamps are to the second; the answer is dated a
		// moment later, so an event in the range's last second counts.
		if ev.Timestamp.Before(b.opts.From.Truncate(time.Second)) || !ev.Timestamp.Before(b.opts.To) {
			continue
		}
		b.r.Totals.LoggedRefusals++
		if rc, ok := b.reasons[ev.Reason]; ok {
			rc.Logged++
		} else {
			b.reasons[ev.Reason] = &ReasonCount{Reason: ev.Reason, Logged: 1}
		}
		if ev.MaxScore != nil {
			b.scores[logKey(ev.SessionID, ev.Question)] = *ev.MaxScore
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("report: read the refusal log: %w", err)
	}
	return nil
}

func (b *builder) add(x *rag.Exchange) {
	t := &b.r.Totals
	t.Questions++
	day := -1
	if i, ok := b.dayIndex[x.AnsweredAt.UTC().Format(time.DateOnly)]; ok {
		day = i
		b.r.Days[i].Questions++
	}
	if x.WasRefusal {
		t.Refusals++
		if day >= 0 {
			b.r.Days[day].Refusals++
		}
		rc, ok := b.reasons[x.RefusalReason]
		if !ok {
			rc = &ReasonCount{Reason: x.RefusalReason}
			b.reasons[x.RefusalReason] = rc
		}
		rc.Count++
		q := refused{text: x.Question, words: words(x.Question), reason: string(x.RefusalReason)}
		if s, ok := b.scores[logKey(x.SessionID, x.Question)]; ok {
			q.score = &s
		}
		if !b.opts.ShowQuestions {
			q.text = ""
		}
		b.refused = append(b.refused, q)
		return
	}
	t.Answers++
	if day >= 0 {
		b.r.Days[day].Answers++
	}
	for i, s := range x.Sources {
		b.quoted[s.ChapterID] = true
		k := sectionKey{s.ChapterID, s.Anchor}
		if quotedBefore(x.Sources[:i], k) {
			continue
		}
		sc, ok := b.sections[k]
		if !ok {
			sc = &SectionCount{Section: b.section(s)}
			b.sections[k] = sc
		}
		sc.Count++
	}
	if x.Feedback == nil {
		return
	}
	switch x.Feedback.Rating {
	case rag.Helpful:
		t.Helpful++
	case rag.NotHelpful:
		t.NotHelpful++
		r := Rated{At: x.AnsweredAt.UTC()}
		if len(x.Sources) > 0 {
			s := b.section(x.Sources[0])
			r.Section = &s
		}
		if b.opts.ShowQuestions {
			r.Question, r.Comment = x.Question, x.Feedback.Comment
		}
		b.r.NotHelpful = append(b.r.NotHelpful, r)
		// Newest first, and only the newest MaxNotHelpful kept: pages come
		// oldest first, so the oldest of the list goes.
		if len(b.r.NotHelpful) > MaxNotHelpful {
			b.r.NotHelpful = b.r.NotHelpful[1:]
		}
	}
}

// quotedBefore reports whether an earlier source of the same answer is
// section k: an answer counts once per section.
func quotedBefore(sources []rag.Source, k sectionKey) bool {
	for _, s := range sources {
		if s.ChapterID == k.chapter && s.Anchor == k.anchor {
			return true
		}
	}
	return false
}

func (b *builder) section(s rag.Source) Section {
	title := b.titles[s.ChapterID]
	if title == "" {
		title = s.ChapterID
	}
	return Section{ChapterID: s.ChapterID, Chapter: title, Heading: s.SectionHeading, Path: s.Path, Anchor: s.Anchor}
}

func (b *builder) finish() *Report {
	r := b.r
	for _, rc := range b.reasons {
		r.RefusalsByReason = append(r.RefusalsByReason, *rc)
	}
	slices.SortFunc(r.RefusalsByReason, func(a, c ReasonCount) int {
		return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.Reason, c.Reason))
	})
	b.topics()
	for _, sc := range b.sections {
		r.TopSections = append(r.TopSections, *sc)
	}
	slices.SortFunc(r.TopSections, func(a, c SectionCount) int {
		return cmp.Or(cmp.Compare(c.Count, a.Count), cmp.Compare(a.ChapterID, c.ChapterID), cmp.Compare(a.Anchor, c.Anchor))
	})
	if len(r.TopSections) > MaxSections {
		r.TopSections = r.TopSections[:MaxSections]
	}
	r.UnquotedChapters = []Chapter{}
	for _, c := range b.opts.Chapters {
		if !b.quoted[c.ID] {
			r.UnquotedChapters = append(r.UnquotedChapters, c)
		}
	}
	for i, j := 0, len(r.NotHelpful)-1; i < j; i, j = i+1, j-1 {
		r.NotHelpful[i], r.NotHelpful[j] = r.NotHelpful[j], r.NotHelpful[i]
	}
	if r.NotHelpful == nil {
		r.NotHelpful = []Rated{}
	}
	if r.RefusedTopics == nil {
		r.RefusedTopics = []Topic{}
	}
	return r
}

// topics groups the refused questions and describes each group.
func (b *builder) topics() {
	r := b.r
	vocab := newVocabulary(b.opts.BookTexts)
	for _, g := range groupRefusals(b.refused, vocab) {
		if len(r.RefusedTopics) >= MaxTopics || g.key == "" ||
			!b.opts.ShowQuestions && len(g.questions) < MinTopicSize {
			r.OtherRefusals += len(g.questions)
			continue
		}
		t := Topic{Words: label(g, b.refused, vocab), Count: len(g.questions), Examples: []Example{}}
		reasons := map[string]int{}
		asked := map[string]*Example{}
		var order []string
		for _, i := range g.questions {
			q := b.refused[i]
			reasons[q.reason]++
			if q.score != nil && (t.BestScore == nil || *q.score > *t.BestScore) {
				s := *q.score
				t.BestScore = &s
			}
			if q.text == "" {
				continue
			}
			k := strings.Join(strings.Fields(strings.ToLower(q.text)), " ")
			if e, ok := asked[k]; ok {
				e.Count++
				continue
			}
			asked[k] = &Example{Question: q.text, Count: 1}
			order = append(order, k)
		}
		best := ""
		for reason, n := range reasons {
			if n > reasons[best] || n == reasons[best] && reason < best {
				best = reason
			}
		}
		t.Reason = rag.RefusalReason(best)
		t.Verdict = verdict(t.Reason, t.Words, vocab)
		if t.Reason == rag.InsufficientContext {
			if s, ok := titled(t.Words, b.opts.Sections, b.opts.Chapters); ok {
				t.Titled = &s
				t.Verdict = "the book has a section on it, “" + s.Heading + "”, but the tutor did not answer from it: see why"
			}
		}
		sort.SliceStable(order, func(i, j int) bool { return asked[order[i]].Count > asked[order[j]].Count })
		for _, k := range order {
			if len(t.Examples) == MaxExamples {
				break
			}
			t.Examples = append(t.Examples, *asked[k])
		}
		r.RefusedTopics = append(r.RefusedTopics, t)
	}
}

// Summary is a topic's line: "students asked about banana bread 23
// times; the book does not cover it".
func (t Topic) Summary() string {
	times := "times"
	if t.Count == 1 {
		times = "time"
	}
	s := fmt.Sprintf("students asked about %s %d %s", strings.Join(t.Words, " "), t.Count, times)
	if t.Verdict != "" {
		s += "; " + t.Verdict
	}
	return s
}

// titled finds the section (or, else, the chapter) whose title names
// every word of a topic, the one with the fewest other words: a question
// refused as insufficient_context although the book has a page on its
// subject says the tutor, not the book, fell short.
func titled(topic []string, sections []Section, chapters []Chapter) (Section, bool) {
	var best Section
	bestExtra := -1
	try := func(s Section) {
		title := words(s.Heading)
		if extra := len(title) - len(topic); (bestExtra < 0 || extra < bestExtra) && namesAll(title, topic) {
			best, bestExtra = s, extra
		}
	}
	for _, s := range sections {
		try(s)
	}
	if bestExtra < 0 {
		for _, c := range chapters {
			try(Section{ChapterID: c.ID, Chapter: c.Title, Heading: c.Title, Path: c.Path})
		}
	}
	return best, bestExtra >= 0 && len(topic) > 0
}

// titleSuffixes are the endings by which a title's word may differ from a
// question's ("Installing Jupyter" names "install jupyter").
var titleSuffixes = []string{"", "ing", "ed", "ion", "ation"}

// namesAll reports whether a title's words hold every word of a topic.
func namesAll(title, topic []string) bool {
	for _, w := range topic {
		found := false
		for _, t := range title {
			for _, suf := range titleSuffixes {
				if t == w+suf || w == t+suf {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}
