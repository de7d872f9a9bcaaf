// Package eval runs a labelled question file (../shared/eval/FORMAT.md)
// through a tutor and scores it the way the format prescribes.
package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
)

// Question is one line of a question file.
type Question struct {
	ID           string   `json:"id"`
	Question     string   `json:"question"`
	SelectedText string   `json:"selected_text,omitempty"`
	Expect       string   `json:"expect"`
	Reasons      []string `json:"reasons"`
	GoldChapter  string   `json:"gold_chapter,omitempty"`
	GoldHeading  string   `json:"gold_heading,omitempty"`
	AnswerTerms  []string `json:"answer_terms,omitempty"`
	Category     string   `json:"category"`
	Note         string   `json:"note,omitempty"`
}

// Categories in the format's order, with what each expects.
var Categories = []struct{ Name, Expect string }{
	{"factual", "answer"}, {"definition", "answer"}, {"procedural", "answer"}, {"code", "answer"},
	{"paraphrase", "answer"}, {"off_domain", "refuse"}, {"out_of_scope_pattern", "refuse"},
	{"in_domain_uncovered", "refuse"}, {"selected_sufficient", "answer"}, {"selected_insufficient", "refuse"},
}

func expectOf(category string) (string, bool) {
	for _, c := range Categories {
		if c.Name == category {
			return c.Expect, true
		}
	}
	return "", false
}

// Validate checks a question against the format (FORMAT.md): every
// field the question's expect and category need, nothing they forbid.
func (q Question) Validate() error {
	if strings.TrimSpace(q.ID) == "" {
		return errors.New("id is empty")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(q.Question)); n < 1 || n > rag.MaxQuestionChars {
		return fmt.Errorf("%s: question has %d characters; it must have 1-%d", q.ID, n, rag.MaxQuestionChars)
	}
	if n := utf8.RuneCountInString(q.SelectedText); n > rag.MaxSelectedTextChars {
		return fmt.Errorf("%s: selected_text has %d characters; the limit is %d", q.ID, n, rag.MaxSelectedTextChars)
	}
	if q.Expect != "answer" && q.Expect != "refuse" {
		return fmt.Errorf("%s: expect must be answer or refuse, not %q", q.ID, q.Expect)
	}
	want, ok := expectOf(q.Category)
	if !ok {
		return fmt.Errorf("%s: unknown category %q", q.ID, q.Category)
	}
	if want != q.Expect {
		return fmt.Errorf("%s: category %s expects %s", q.ID, q.Category, want)
	}
	selected := strings.TrimSpace(q.SelectedText) != ""
	if wantSel := strings.HasPrefix(q.Category, "selected_"); selected != wantSel {
		if wantSel {
			return fmt.Errorf("%s: category %s needs selected_text", q.ID, q.Category)
		}
		return fmt.Errorf("%s: category %s takes no selected_text", q.ID, q.Category)
	}
	for _, r := range q.Reasons {
		if !slices.Contains(rag.RefusalReasons, rag.RefusalReason(r)) {
			return fmt.Errorf("%s: unknown refusal reason %q", q.ID, r)
		}
	}
	if q.Expect == "refuse" {
		if len(q.Reasons) == 0 {
			return fmt.Errorf("%s: a refusal needs its reasons", q.ID)
		}
		return nil
	}
	if len(q.Reasons) != 0 {
		return fmt.Errorf("%s: an answer takes no reasons", q.ID)
	}
	if len(q.AnswerTerms) == 0 {
		return fmt.Errorf("%s: an answer needs answer_terms", q.ID)
	}
	for _, t := range q.AnswerTerms {
		if len(alternatives(t)) == 0 {
			return fmt.Errorf("%s: empty answer_terms entry %q", q.ID, t)
		}
	}
	if !selected && (strings.TrimSpace(q.GoldChapter) == "" || strings.TrimSpace(q.GoldHeading) == "") {
		return fmt.Errorf("%s: an answer without selected_text needs gold_chapter and gold_heading", q.ID)
	}
	return nil
}

// ReadQuestions reads a JSON Lines question file, skipping blank lines.
// Every line is validated; an error names its line ("line 7: ...").
func ReadQuestions(r io.Reader) ([]Question, error) {
	var qs []Question
	firstLine := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		q, err := parseQuestion(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if first, dup := firstLine[q.ID]; dup {
			return nil, fmt.Errorf("line %d: duplicate id %s (first on line %d)", n, q.ID, first)
		}
		firstLine[q.ID] = n
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if len(qs) == 0 {
		return nil, errors.New("no questions")
	}
	return qs, nil
}

// parseQuestion decodes one line strictly: a misspelt field name is an
// error, not a silently empty field.
func parseQuestion(line []byte) (Question, error) {
	var q Question
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		return q, err
	}
	if dec.More() {
		return q, errors.New("more than one JSON value on the line")
	}
	return q, q.Validate()
}

// ReadQuestionsFile reads a question file from disk; errors name the file.
func ReadQuestionsFile(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := ReadQuestions(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return qs, nil
}

// Result is the outcome of one question.
type Result struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Expect   string `json:"expect"`
	// Got is what the tutor did: "answer" or "refuse".
	Got           string `json:"got"`
	RefusalReason string `json:"refusal_reason,omitempty"`
	Correct       bool   `json:"correct"`
	// Why says in a few words what was wrong; empty when correct.
	Why string `json:"why,omitempty"`
	// MaxScore is the best score among the response's sources (0 for a
	// refusal, which carries none).
	MaxScore float64       `json:"max_source_score"`
	Latency  time.Duration `json:"latency_ns"`
	// AnswerChars is the length of an answer in characters (0 for a
	// refusal): what a reader has to read.
	AnswerChars int `json:"answer_chars,omitempty"`
}

// Wrong reports an answer that is not correct: a refusal may be
// unhelpful, but only an answer can mislead.
func (r Result) Wrong() bool { return r.Got == "answer" && !r.Correct }

// sessionID is a question's fixed session: the same id always talks in the
// same session, so runs are repeatable and never share history.
func sessionID(questionID string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("textbook-rag-eval:"+questionID)).String()
}

// Run asks every question (with a nil stream) and scores the responses.
// chunk looks a source's chunk up by id, for its chapter path and
// headings. A tutor error stops the run: a refusal is a response, never an
// error, so an error means the system under test is broken.
func Run(ctx context.Context, tutor rag.Tutor, qs []Question, chunk func(id string) (rag.Chunk, bool)) (*Report, error) {
	rep := &Report{Results: make([]Result, 0, len(qs))}
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		req := rag.ChatRequest{Question: q.Question, SelectedText: q.SelectedText, SessionID: sessionID(q.ID)}
		if err := req.Normalize(); err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		start := time.Now()
		resp, err := tutor.Ask(ctx, req, nil)
		latency := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.ID, err)
		}
		r := Score(q, resp, chunk)
		r.Latency = latency
		if !resp.WasRefusal {
			r.AnswerChars = utf8.RuneCountInString(resp.Answer)
		}
		rep.Results = append(rep.Results, r)
	}
	return rep, nil
}

// Score judges one response as FORMAT.md says: the response must refuse
// or answer as expected; a refusal must carry one of the listed reasons;
// an answer must contain every answer term and, without selected text,
// cite a source in the gold chapter under the gold heading.
func Score(q Question, resp rag.ChatResponse, chunk func(id string) (rag.Chunk, bool)) Result {
	r := Result{ID: q.ID, Category: q.Category, Expect: q.Expect, Got: "answer"}
	for _, s := range resp.Sources {
		r.MaxScore = max(r.MaxScore, s.Score)
	}
	if resp.WasRefusal {
		r.Got = "refuse"
		r.RefusalReason = "(none)"
		if resp.RefusalReason != nil {
			r.RefusalReason = string(*resp.RefusalReason)
		}
	}
	switch {
	case r.Got != q.Expect && r.Got == "refuse":
		r.Why = "refused: " + r.RefusalReason
	case r.Got != q.Expect:
		r.Why = "answered a question that must be refused"
	case r.Got == "refuse":
		if !slices.Contains(q.Reasons, r.RefusalReason) {
			r.Why = "wrong reason " + r.RefusalReason + " (want " + strings.Join(q.Reasons, "|") + ")"
		}
	default:
		if t := missingTerm(resp.Answer, q.AnswerTerms); t != "" {
			r.Why = fmt.Sprintf("missing term %q", t)
		} else if q.SelectedText == "" && !hasGoldSource(q, resp.Sources, chunk) {
			r.Why = "no source at " + q.GoldChapter + " › " + q.GoldHeading + " (got: " + describe(resp.Sources, chunk) + ")"
		}
	}
	r.Correct = r.Why == ""
	return r
}

// alternatives splits an answer_terms entry on "|" into its trimmed,
// non-empty alternatives.
func alternatives(term string) []string {
	var alts []string
	for _, a := range strings.Split(term, "|") {
		if a = strings.TrimSpace(a); a != "" {
			alts = append(alts, a)
		}
	}
	return alts
}

// missingTerm returns the first entry none of whose alternatives occurs in
// the answer (case-insensitively), or "" when every entry matches.
func missingTerm(answer string, terms []string) string {
	low := strings.ToLower(answer)
	for _, t := range terms {
		hit := false
		for _, alt := range alternatives(t) {
			if strings.Contains(low, strings.ToLower(alt)) {
				hit = true
				break
			}
		}
		if !hit {
			return t
		}
	}
	return ""
}

// headingAnchor is the anchor a heading's source may end in: Docusaurus's
// {#id}, MDX's {/*id*/} or Hugging Face doc-builder's [[id]].
var headingAnchor = regexp.MustCompile(`\s*(?:\{#[^{}]*\}|\{/\*[^{}]*\*/\}|\[\[[^\[\]\s]*\]\])\s*$`)

// emphasisMark is an underscore or asterisk that opens or closes
// emphasis: one with no letter or digit on one side (_can_, *x*,
// **bold**). An underscore inside a word (snake_case) is text.
var emphasisMark = regexp.MustCompile(`\*+|(?:^|[^\pL\pN_])_+|_+(?:[^\pL\pN_]|$)`)

// headingTag is an HTML tag in a heading's source (`<a name="x">`): the
// site shows its text, not the tag.
var headingTag = regexp.MustCompile(`</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>`)

// normHeading compares headings as a reader sees them: without a
// trailing anchor ({#id}, {/*id*/} or [[id]]), HTML tags, code-span
// backticks or emphasis marks, case or extra space. The labels write a
// heading as its Markdown source ("The `map()` method", "What you _can_
// do"), the chunker keeps its text ("The map() method", "What you can do").
func normHeading(h string) string {
	h = headingAnchor.ReplaceAllString(strings.TrimSpace(h), "")
	h = headingTag.ReplaceAllString(h, "")
	h = strings.ReplaceAll(h, "`", "")
	h = emphasisMark.ReplaceAllStringFunc(h, func(m string) string { return strings.Trim(m, "_*") })
	return strings.ToLower(strings.Join(strings.Fields(h), " "))
}

// hasGoldSource reports whether a source lies in the gold chapter and
// cites the gold section: its heading is the gold one, or, as its chunk's
// text shows, one holds the other (a "###" part of the gold "##"
// section, or the "##" section whose part is gold). A source that only
// shares a chunk with the gold section does not: a reader who follows
// its link lands elsewhere, however much of the quote ran on into the
// gold section.
func hasGoldSource(q Question, sources []rag.Source, chunk func(string) (rag.Chunk, bool)) bool {
	gold := normHeading(q.GoldHeading)
	for _, s := range sources {
		c, ok := chunk(s.ChunkID)
		if !ok || c.ChapterPath != strings.TrimSpace(q.GoldChapter) {
			continue
		}
		if cited := normHeading(s.SectionHeading); cited == gold || nested(outlineOf(c), cited, gold) {
			return true
		}
	}
	return false
}

// outlined is a heading of a chunk's outline, normalised (normHeading).
type outlined struct {
	level int
	text  string
}

// markdownHeading is a heading line of a chunk's text.
var markdownHeading = regexp.MustCompile(`^(#{1,6})\s+(.+?)\s*$`)

// outlineOf lists a chunk's headings in the order its text sets them:
// its section's first (a chunk that goes on with a section does not
// repeat its heading), then every heading line. A line of fenced code is
// never a heading ("# a comment").
func outlineOf(c rag.Chunk) []outlined {
	level := 2
	for _, h := range c.Headings {
		if normHeading(h.Text) == normHeading(c.SectionHeading) && h.Level > 0 {
			level = h.Level
			break
		}
	}
	out := []outlined{{level, normHeading(c.SectionHeading)}}
	fence := ""
	for _, line := range strings.Split(c.Text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case fence == "" && (strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~")):
			fence = line[:3]
		case fence != "":
			if strings.HasPrefix(line, fence) {
				fence = ""
			}
		default:
			if m := markdownHeading.FindStringSubmatch(line); m != nil {
				out = append(out, outlined{len(m[1]), normHeading(m[2])})
			}
		}
	}
	return out
}

// nested reports whether the outline sets heading b inside heading a
// (before the next heading of a's level or above) or a inside b.
func nested(outline []outlined, a, b string) bool {
	for i, h := range outline {
		if h.text != a {
			continue
		}
		for j := i + 1; j < len(outline) && outline[j].level > h.level; j++ {
			if outline[j].text == b {
				return true
			}
		}
		level := h.level
		for j := i - 1; j >= 0 && level > 1; j-- {
			if outline[j].level < level {
				if outline[j].text == b {
					return true
				}
				level = outline[j].level
			}
		}
	}
	return false
}

// describe lists where the sources point, for a wrong answer's why.
func describe(sources []rag.Source, chunk func(string) (rag.Chunk, bool)) string {
	var parts []string
	for _, s := range sources {
		path := s.ChapterID + " (chunk " + s.ChunkID + " unknown)"
		if c, ok := chunk(s.ChunkID); ok {
			path = c.ChapterPath
		}
		parts = append(parts, path+" › "+s.SectionHeading)
	}
	if len(parts) == 0 {
		return "no sources"
	}
	return strings.Join(parts, "; ")
}
