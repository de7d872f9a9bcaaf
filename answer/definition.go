package answer

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

// A definition question asks what one term is; its focus is the head of
// that term, the last word of the noun phrase in English ("a ROS 2
// topic" is a topic). A passage answers it best when it defines that very
// term, not a neighbour that shares a modifier ("ROS 2 is ...").

// focusIsX and focusXMean capture X in "what is X", "define X", "what
// does X mean" and their kin when that is the whole question, but for a
// lead-in before a comma ("In the glossary, what is X?") or a clause that
// places it ("... in Gazebo?"): a question that goes on ("what is X, and
// who defines it?") asks more than a definition.
var (
	focusIsX   = regexp.MustCompile(`(?i)^(?:[^?]*?,\s*)?(?:what\s+(?:is|are|was|were)|what's|whats|define|definition\s+of|meaning\s+of|explain\s+what)\s+(?:an?\s+|the\s+)?(.+?)(?:\s+(?:in|on|within|inside|according\s+to)\s+[^,;?]*)?\s*[?.!]?\s*$`)
	focusXMean = regexp.MustCompile(`(?i)^(?:[^?]*?,\s*)?what\s+(?:does|do|did)\s+(?:an?\s+|the\s+)?(.+?)\s+(?:mean|stand\s+for|refer\s+to)(?:\s+(?:in|on|within|inside|according\s+to)\s+[^,;?]*)?\s*[?.!]?\s*$`)
)

// focusTerm is the term a definition question asks about: the stems of
// its words and its head (the last).
type focusTerm struct {
	head  string
	stems []string
}

// definitionFocus returns the term a definition question asks about, or
// ok false when the question asks for no definition, or asks about more
// than one plain term ("the difference between a topic and a service",
// "the purpose of a topic"). The term is read by the question's own
// tokens that lie within it.
func definitionFocus(question *analysis.Question) (f focusTerm, ok bool) {
	text := question.Text
	m := focusXMean.FindStringSubmatchIndex(text)
	if m == nil {
		m = focusIsX.FindStringSubmatchIndex(text)
	}
	if m == nil {
		return f, false
	}
	from := utf8.RuneCountInString(text[:m[2]])
	to := from + utf8.RuneCountInString(text[m[2]:m[3]])
	for i, t := range question.Tokens {
		if sp := question.Spans[i]; sp[0] < from || sp[1] > to || t.Part {
			continue
		}
		if analysis.Stopwords[t.Word] || analysis.QuestionWords[t.Word] {
			return focusTerm{}, false
		}
		f.stems = append(f.stems, t.Stem)
		f.head = t.Stem
	}
	return f, f.head != ""
}

// definesFocus reports a unit that defines, in so many words and with
// the term set in bold or italics (see markedDefinedTerm: the author's
// mark of the definition), the head of the term asked about, with the
// term's other words in the unit itself or around it (its heading,
// section or chapter): "A **topic** is ..." in the ROS 2 chapter defines
// "a ROS 2 topic".
func definesFocus(u *unit, f focusTerm) bool {
	if !u.defined[f.head] || markedDefinedTerm(u) == "" {
		return false
	}
	// "**DDS Layer**" defines a part of DDS, not DDS.
	for s := range u.defined {
		if !slices.Contains(f.stems, s) {
			return false
		}
	}
	for _, s := range f.stems {
		if !u.defined[s] && !u.terms[s] && u.ctx.source(s) < fromSection {
			return false
		}
	}
	return true
}

// Explicit definitions: the term a passage defines in so many words. A
// unit's heading is not one: definedTerm says only what the text itself
// marks as defined.
var (
	// leadingTerm: a bold or italic term opening the line, then a colon,
	// a dash or a verb ("**Stall torque**: ...", "*Scaffolding* is ...").
	leadingTerm = regexp.MustCompile(`^(?:\*\*|__|\*|_)([^*_\n]{1,60}?)(?:\*\*|__|\*|_)\s*(?:\([^)]*\)\s*)?(?::|—|–|-\s|is\b|are\b|means\b|refers\b|describes\b|,)`)
	// calledTerm: "... is called a *topic*", "known as SLAM".
	calledTerm = regexp.MustCompile(`(?i)\b(?:is|are)\s+(?:called|known\s+as|termed|referred\s+to\s+as)\s+(?:an?\s+|the\s+)?(?:\*\*|__|\*|_|")?([\w./-]+(?:\s+[\w./-]+){0,2})`)
)

// definedTerm returns the stems of the term a unit defines in so many
// words: a leading bold or italic term ("**Stall torque**: ..."), the
// subject of "X is ...", "X refers to ..." (see definitionShape), or the
// term of "... is called X". It returns nil for a unit that defines
// nothing; a table row describes its first cell rather than defining it.
func definedTerm(u *unit) map[string]bool {
	t := strings.TrimSpace(itemLine.ReplaceAllString(u.text, ""))
	if u.kind != sentence && u.kind != item && u.kind != label {
		return nil
	}
	if m := leadingTerm.FindStringSubmatch(t); m != nil && !labelWords[strings.ToLower(strings.TrimSpace(m[1]))] {
		return termStems(m[1])
	}
	plain := strings.NewReplacer("**", "", "__", "", "*", "", "`", "").Replace(t)
	if m := definitionShape.FindStringSubmatch(plain); m != nil {
		return termStems(m[1])
	}
	if m := calledTerm.FindStringSubmatch(plain); m != nil {
		return termStems(m[1])
	}
	return nil
}

func termStems(term string) map[string]bool {
	s := analysis.StemSet(strings.TrimSpace(strings.Split(term, "(")[0]))
	if len(s) == 0 {
		return nil
	}
	return s
}

// Entries: a definition list ("Selector" on a line, ": A function that
// ..." on the next, as Markdown Extra, Pandoc and MkDocs write it) or a
// table of terms and their meanings states each term's meaning as an
// entry of its own, which answers "what is X?" as a glossary's entry
// does (see definer).

// definitionEntries splits a paragraph's lines into the entries of a
// definition list, each its term's line and the lines of its meaning
// (including further terms and meanings in one paragraph), or returns nil
// for a paragraph that is not one.
func definitionEntries(lines []string) []string {
	if len(lines) < 2 || !isMeaningLine(lines[1]) || !isTermLine(lines[0]) {
		return nil
	}
	var out []string
	for i, l := range lines {
		if i+1 < len(lines) && isTermLine(l) && isMeaningLine(lines[i+1]) || len(out) == 0 {
			out = append(out, l)
			continue
		}
		out[len(out)-1] += "\n" + l
	}
	return out
}

func isMeaningLine(l string) bool { return strings.HasPrefix(l, ": ") || strings.HasPrefix(l, ":\t") }

// isTermLine reports a line short enough to be a term, that is no
// sentence and no meaning line itself.
func isTermLine(l string) bool {
	return l != "" && len(l) <= maxTermChars && !isMeaningLine(l) && !strings.ContainsAny(l[len(l)-1:], ".!?:")
}

// entryTerm returns the term a unit is the entry of, in a definition list
// (see definitionEntries) or a table of terms and meanings (see
// glossaryRow), as the book writes it; "" for any other unit.
func entryTerm(u *unit) string {
	switch u.kind {
	case row:
		return glossaryRow(u.text)
	case sentence:
		if term, _, ok := strings.Cut(u.text, "\n"); ok && isTermLine(term) && strings.HasPrefix(u.text[len(term)+1:], ":") {
			return strings.Trim(term, "*_` ")
		}
	}
	return ""
}

// definitionSite is a unit that defines a term in so many words.
type definitionSite struct {
	unit int // in bookText.units
	term string
	// stems are the term's stems, in order, function words left out.
	stems []string
	key   string
	// info is what the term tells in this book: the sum of its stems'
	// IDF.
	info float64
	// glossary marks a glossary's entry: it gives the book's own sense of
	// the term.
	glossary bool
	// labelled marks a line that only sets its term before a colon or a
	// dash ("- **Bias**: constant offset ..."): books write lists of
	// features and advice that way too (see leadingStems).
	labelled bool
}

// definitionsFor picks the book's definitions of the terms a selection
// uses, in full or, for a term of its own chapter, by its last word (see
// usesHead): at most maxDefinitions, one a term, none from the selection
// itself or the lead-in (skip). Terms the selection does not define
// itself come first, then the most informative; a term defined in several
// places is quoted from the selection's own chapter when it is defined
// there, else from where the book first defines it.
//
// A definition must be of the selection's subject: beside its term, it
// or its heading uses another of the selection's informative words (the
// book defines "**Absolute**: knows its position on power-up" of
// encoders, not of time), unless it is a glossary's entry, which gives
// the sense the whole book uses, or a term of the selection's chapter
// named by its last word, which the chapter gives its sense. A line that only sets a term before a
// colon defines one of the selection's leading words (see leadingStems).
func (ans *Answerer) definitionsFor(selected, chapter string, skip func(int) bool) []definitionSite {
	bt := ans.text()
	seq := stemSequence(selected)
	leading := ans.leadingStems(seq)
	subject := map[string]bool{}
	for _, s := range seq {
		subject[s] = !ans.everyday(s)
	}
	own := map[string]bool{}
	for _, u := range selectionUnits(readerLines(selected)) {
		if term, _ := definitionOf(u, nil, false); term != "" {
			own[termKey(termSequence(term))] = true
		}
	}
	byKey := map[string]definitionSite{}
	var keys []string
	shared := sharedHeads(bt, chapter)
	// byHead: the selection names the term by a last word no other term
	// of the chapter ends with (usesHead holds terms of two words or more).
	byHead := func(d definitionSite) bool {
		return ans.usesHead(seq, d, chapter) && !shared[d.stems[len(d.stems)-1]]
	}
	for _, d := range bt.defs {
		full := usesTerm(seq, d.stems)
		if !full && !byHead(d) || skip(d.unit) ||
			d.labelled && !slices.ContainsFunc(d.stems, func(s string) bool { return leading[s] }) ||
			full && !d.glossary && !bt.sameSense(d, subject) {
			continue
		}
		prev, seen := byKey[d.key]
		if !seen {
			keys = append(keys, d.key)
		}
		if !seen || bt.units[d.unit].chunk.ChapterPath == chapter && bt.units[prev.unit].chunk.ChapterPath != chapter {
			byKey[d.key] = d
		}
	}
	out := make([]definitionSite, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if own[out[i].key] != own[out[j].key] {
			return !own[out[i].key]
		}
		return out[i].info > out[j].info
	})
	return out[:min(len(out), maxDefinitions)]
}

// usesHead reports a selection that names a term of its own chapter by
// the term's last word alone, as a chapter does once it has defined it:
// "narrows the gap" after "the **reality gap** is ...", "before any
// randomization" after "**Domain randomization** trains ...". The last
// word must not be the book's everyday vocabulary.
func (ans *Answerer) usesHead(seq []string, d definitionSite, chapter string) bool {
	if chapter == "" || len(d.stems) < 2 || ans.text().units[d.unit].chunk.ChapterPath != chapter {
		return false
	}
	head := d.stems[len(d.stems)-1]
	return slices.Contains(seq, head) && !ans.everyday(head)
}

// sharedHeads are the last words that several terms of the chapter end
// with ("join" of "rolling joins" and "equi joins"): such a word alone
// names none of them, so a selection that uses it defines none.
func sharedHeads(bt *bookText, chapter string) map[string]bool {
	keysOf := map[string]string{}
	shared := map[string]bool{}
	for _, d := range bt.defs {
		if len(d.stems) < 2 || bt.units[d.unit].chunk.ChapterPath != chapter {
			continue
		}
		head := d.stems[len(d.stems)-1]
		if k, seen := keysOf[head]; seen && k != d.key {
			shared[head] = true
		}
		keysOf[head] = d.key
	}
	return shared
}

// sameSense reports a definition that uses, in its text or its heading,
// one of the subject words beside its own term's.
func (bt *bookText) sameSense(d definitionSite, subject map[string]bool) bool {
	u := bt.units[d.unit]
	for s := range analysis.StemSet(u.text + " " + u.heading.Text) {
		if subject[s] && !slices.Contains(d.stems, s) {
			return true
		}
	}
	return false
}

// stemSequence is a text's stems in order, function words and the parts
// of compound words left out.
func stemSequence(text string) []string {
	var out []string
	for _, t := range analysis.Tokenize(text) {
		if !t.Part && !analysis.Stopwords[t.Word] {
			out = append(out, t.Stem)
		}
	}
	return out
}

// termSequence is a term's stems in order, each once.
func termSequence(term string) []string {
	var out []string
	for _, s := range stemSequence(strings.Split(term, "(")[0]) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func termKey(stems []string) string {
	s := slices.Clone(stems)
	sort.Strings(s)
	return strings.Join(s, " ")
}

// usesTerm reports whether a text's stems (seq) hold all of a term's
// within a span one word longer than the term: "series elastic
// actuators" uses the term "Series Elastic Actuator", a sentence that
// says "series" and, later, "actuator" does not.
func usesTerm(seq, term []string) bool {
	span := len(term) + 1
	for i, s := range seq {
		if s != term[0] && !slices.Contains(term, s) {
			continue
		}
		end := min(len(seq), i+span)
		all := true
		for _, t := range term {
			all = all && slices.Contains(seq[i:end], t)
		}
		if all {
			return true
		}
	}
	return false
}

var (
	// definingRest: what follows "X is" / "X are" in a definition: an
	// article, or a phrase that says what X is ("one of", "used to").
	definingRest = regexp.MustCompile(`(?i)^(?:a|an|the|one\s+of|any|defined\s+as|used\s+(?:to|for|in)|how|what|when|where|simply|essentially|basically)\b`)
	definingVerb = regexp.MustCompile(`(?:means|refers to|describes)\s$`)
	// glossaryTitle marks a chapter or section whose headings are terms.
	glossaryTitle = regexp.MustCompile(`(?i)\b(?:glossary|key terms|terminology)\b`)
	// termColumn and meaningColumn are the header cells of a table of
	// terms and what they mean ("| Term | Definition |", "| Specification
	// | What It Tells You |").
	termColumn    = regexp.MustCompile(`(?i)^(?:term|terms|concept|word|acronym|abbreviation|name|specification|parameter|property|metric|symbol|notation)$`)
	meaningColumn = regexp.MustCompile(`(?i)^(?:definition|meaning|what it (?:is|means|tells you|measures)|explanation)$|^description$`)
)

// How long a term and its meaning are. A term is a name, not a
// sentence: at most maxTermChars characters (a term line, a marked
// term), maxNameWords words (a glossary's heading, a marked term a reader
// would ask about), and maxDefinedWords when "X is ..." defines it; what
// follows a term defines it only in minMeaningWords words or more.
const (
	maxTermChars    = 60
	maxNameWords    = 6
	maxDefinedWords = 4
	minMeaningWords = 3
)

// notTerms are words a line opens with in bold that label what follows
// rather than name a term ("**Result**: ...", "**Lesson**: ...").
var notTerms = map[string]bool{
	"result": true, "results": true, "lesson": true, "lessons": true, "cause": true, "causes": true, "solution": true,
	"problem": true, "goal": true, "approach": true, "task": true, "tip": true, "warning": true, "important": true,
	"step": true, "answer": true, "question": true, "why": true, "how": true, "benefit": true, "benefits": true,
	"challenge": true, "challenges": true, "outcome": true, "use case": true, "pros": true, "cons": true,
	"advantages": true, "disadvantages": true, "strengths": true, "weaknesses": true, "input": true, "output": true,
	"fix": true, "issue": true, "symptom": true, "context": true, "reason": true, "impact": true, "key point": true,
	"key takeaway": true, "takeaway": true, "remember": true, "caution": true, "hint": true, "purpose": true,
	"operating principle": true, "trade-off": true, "tradeoff": true,
}

// definitionOf returns the term a unit defines, as the book writes it, or
// "". It reads the shapes definedTerm knows ("**Stall torque**: ...", "A
// topic is a ...", "... is called SLAM", a table row), but asks more of
// them, as a passage quoted as a definition must be one: "X is ..." goes
// on with an article or a phrase that says what X is ("Topics are
// useful" defines nothing); a term does not open with a function word
// ("No messages received: ...") or label what follows ("**Result**:
// ..."); a line says something after its term and asks nothing; a row
// is one of a table of terms and their meanings. In a glossary, the first
// sentence under a short heading defines the heading (first: the unit
// opens its section; c is its chunk, nil for a selection's unit).
func definitionOf(u *unit, c *rag.Chunk, first bool) (term string, labelled bool) {
	if u.asks || u.kind == code || strings.Contains(u.text, "?") {
		return "", false
	}
	if first && c != nil && u.kind == sentence && isGlossary(c, u.heading.Text) {
		return u.heading.Text, false
	}
	if u.defined == nil {
		return "", false
	}
	t := strings.TrimSpace(itemLine.ReplaceAllString(u.text, ""))
	switch plain := strings.NewReplacer("**", "", "__", "", "*", "", "`", "").Replace(t); {
	case u.kind == row:
		term = glossaryRow(u.text)
	case strings.HasSuffix(t, ":"):
	case leadingTerm.MatchString(t):
		m := leadingTerm.FindStringSubmatchIndex(t)
		verb := strings.TrimLeft(strings.TrimSpace(t[m[3]:m[1]]), "*_ ")
		r, _ := utf8.DecodeRuneInString(verb)
		labelled = verb == "" || strings.ContainsRune(":—–-,(", r)
		if len(strings.Fields(t[m[1]:])) >= minMeaningWords && (labelled || definingVerb.MatchString(verb+" ") || definingRest.MatchString(strings.TrimSpace(t[m[1]:]))) {
			term = t[m[2]:m[3]]
		}
	case definitionShape.MatchString(plain):
		m := definitionShape.FindStringSubmatch(plain)
		if len(strings.Fields(m[1])) <= maxDefinedWords && (definingVerb.MatchString(m[0]) || definingRest.MatchString(plain[len(m[0]):])) {
			term = m[1]
		}
	case calledTerm.MatchString(plain):
		term = calledTerm.FindStringSubmatch(plain)[1]
		// calledTerm takes three words at most: a term set in bold or
		// italics is taken whole ("known as **Simultaneous Localization
		// and Mapping (SLAM)**").
		for _, m := range markedTerm.FindAllStringSubmatch(t, -1) {
			if marked := strings.Join(m[1:], ""); strings.HasPrefix(marked, term) {
				term = marked
				break
			}
		}
	}
	term = strings.TrimSpace(term)
	words := strings.Fields(strings.Split(term, "(")[0])
	n := len(words)
	for n > 0 && analysis.Stopwords[strings.ToLower(words[n-1])] {
		n--
	}
	if n < len(words) {
		term = strings.Join(words[:n], " ") // "Localization and" ends at "Localization"
	}
	low := strings.ToLower(strings.Join(words[:n], " "))
	if n == 0 || analysis.Stopwords[strings.ToLower(words[0])] || labelWords[low] || notTerms[low] {
		return "", false
	}
	return term, labelled
}

// glossaryRow returns the term of a row of a table of terms and their
// meanings (two columns, the header naming them so), or "".
func glossaryRow(text string) string {
	lines := strings.Split(text, "\n")
	if len(lines) < 3 {
		return ""
	}
	head := cells(lines[0])
	row := cells(lines[len(lines)-1])
	if len(head) != 2 || len(row) != 2 || len(strings.Fields(row[1])) < minMeaningWords {
		return ""
	}
	if !meaningColumn.MatchString(head[1]) || strings.EqualFold(head[1], "description") && !termColumn.MatchString(head[0]) {
		return ""
	}
	return strings.Trim(row[0], "*_`")
}

func cells(line string) []string {
	out := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

// isGlossary reports a heading of a glossary: a short one (a term, not
// the glossary's own title) in a chapter or section titled as one.
func isGlossary(c *rag.Chunk, heading string) bool {
	if !glossaryTitle.MatchString(c.ChapterTitle+" "+c.ChapterPath+" "+c.SectionHeading) || glossaryTitle.MatchString(heading) {
		return false
	}
	n := len(strings.Fields(heading))
	return n >= 1 && n <= maxNameWords && heading != c.ChapterTitle && len([]rune(heading)) > 1 && len(termSequence(heading)) > 0
}
