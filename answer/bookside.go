package answer

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/textbook-rag/rag"
)

// The book side: what the answerer reads of the whole book rather than of
// the chunks a question retrieved: the book as one run of units for
// explaining a selection (bookText) and the questions the self-check
// asks (DefinitionProbes). Building it splits every chunk into units and
// works out what each unit defines, seconds of CPU on a large book, so it
// is built once, when the book is ingested, kept beside the index (see
// WriteBookSide) and read back when first needed (see UseBookSide).

// bookSide is the answerer's view of the whole book.
type bookSide struct {
	text   *bookText
	probes []Probe
}

// sideBlock is how many chunks building the book side splits at once:
// the cores share a block, and only a block's units are held at a time.
const sideBlock = 256

// bookSide returns the book side: read with the function UseBookSide
// gave, else (none given, or what it reads does not decode) built.
func (ans *Answerer) bookSide() *bookSide {
	ans.sideOnce.Do(func() {
		if ans.readSide != nil {
			side, err := ans.loadSide()
			if err == nil {
				ans.side = side
				return
			}
			if ans.sideFailed != nil {
				ans.sideFailed(err)
			}
		}
		ans.side = ans.buildSide()
	})
	return ans.side
}

// UseBookSide makes the answerer read its book side with read (the bytes
// WriteBookSide wrote for this book) when it first needs it, instead of
// building it: a start reads nothing more, and the first explanation
// reads the file instead of splitting the book. When read fails or its
// bytes do not decode, failed is told and the answerer builds the book
// side itself. Call it before the answerer is used.
func (ans *Answerer) UseBookSide(read func() ([]byte, error), failed func(error)) {
	ans.readSide, ans.sideFailed = read, failed
}

// WriteBookSide builds the book side, unless it was built or read
// already, and writes it to w for UseBookSide to read. The answerer
// keeps it: what reads the whole book next (the self-check's probes, an
// explanation) does not split the book again.
func (ans *Answerer) WriteBookSide(w io.Writer) error {
	if err := gob.NewEncoder(w).Encode(storeSide(ans.bookSide())); err != nil {
		return fmt.Errorf("write the answerer's book side: %w", err)
	}
	return nil
}

func (ans *Answerer) loadSide() (*bookSide, error) {
	data, err := ans.readSide()
	if err != nil {
		return nil, err
	}
	var st storedSide
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&st); err != nil {
		return nil, fmt.Errorf("read the answerer's book side: %w", err)
	}
	side, err := st.side(ans.book.Chunks())
	if err != nil {
		return nil, fmt.Errorf("read the answerer's book side: %w", err)
	}
	return side, nil
}

// buildSide splits the book's chunks, a block at a time, the cores
// sharing a block, and places their units in book order.
func (ans *Answerer) buildSide() *bookSide {
	chunks := ans.book.Chunks()
	b := newTextBuilder(ans)
	ps := newProbeSites()
	workers := runtime.GOMAXPROCS(0)
	block := make([][]*unit, sideBlock)
	for from := 0; from < len(chunks); from += sideBlock {
		to := min(from+sideBlock, len(chunks))
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := from + w; i < to; i += workers {
					block[i-from] = ans.splitChunk(i)
				}
			})
		}
		wg.Wait()
		for i := from; i < to; i++ {
			b.addChunk(i, &chunks[i], block[i-from])
			ps.addChunk(&chunks[i], block[i-from])
			block[i-from] = nil
		}
	}
	return &bookSide{text: b.finish(), probes: ps.probes(chunks)}
}

// splitChunk returns the units of the book's chunk i: those a question
// split already, else split now and not kept.
func (ans *Answerer) splitChunk(i int) []*unit {
	if p := ans.units[i].Load(); p != nil {
		return *p
	}
	ans.splits.Add(1)
	return splitUnits(ans.book.Chunks()[i])
}

// storedSide is the book side as kept: columns of numbers and two string
// tables, which gob reads as a few large slices rather than a value per
// unit. Texts holds every string but the words and stems (Strs, as
// bookText.strs); the columns name strings by their place in the table.
type storedSide struct {
	Strs, Texts []string
	// The units, one entry each; UnitKind is 0 for a heading, the
	// unit's kind + 1 otherwise; UnitWords counts its words.
	UnitText, UnitLead, UnitHeadingText, UnitHeadingAnchor []int32
	UnitHeadingLevel, UnitChunk, UnitPara, UnitSection     []int32
	UnitWords                                              []int32
	UnitKind                                               []byte
	Words                                                  []int32
	// The definitions; DefStems lists each one's stems in turn,
	// DefStemCount of them; DefFlags holds defGlossary and defLabelled.
	DefUnit, DefTerm, DefKey, DefStemCount, DefStems []int32
	DefInfo                                          []float64
	DefFlags                                         []byte
	SectionFirst, SectionWords                       []int32
	SectionAssessment                                []bool
	// UseCount[s] counts the sections that use stem s (Strs); their
	// uses follow each other in UseSection and UseN.
	UseCount, UseSection, UseN []int32
	// The probes: each one's question and ProbeSectionCount sections.
	ProbeQuestion, ProbeSectionCount, ProbeSections []int32
}

const (
	defGlossary = 1 << iota
	defLabelled
)

// errSide is the error of a kept book side that does not fit the book.
var errSide = errors.New("the kept data does not fit the book")

// storeSide lays a book side out in columns.
func storeSide(side *bookSide) *storedSide {
	bt := side.text
	st := &storedSide{Strs: bt.strs, Words: bt.words}
	texts := map[string]int32{}
	text := func(s string) int32 {
		id, ok := texts[s]
		if !ok {
			id = int32(len(st.Texts))
			texts[s] = id
			st.Texts = append(st.Texts, s)
		}
		return id
	}
	for _, p := range bt.units {
		st.UnitText = append(st.UnitText, text(p.text))
		st.UnitLead = append(st.UnitLead, text(p.lead))
		st.UnitHeadingText = append(st.UnitHeadingText, text(p.heading.Text))
		st.UnitHeadingAnchor = append(st.UnitHeadingAnchor, text(p.heading.Anchor))
		st.UnitHeadingLevel = append(st.UnitHeadingLevel, int32(p.heading.Level))
		st.UnitChunk = append(st.UnitChunk, p.ci)
		st.UnitPara = append(st.UnitPara, int32(p.para))
		st.UnitSection = append(st.UnitSection, p.section)
		st.UnitWords = append(st.UnitWords, p.to-p.from)
		kind := byte(0)
		if !p.isHeading {
			kind = byte(p.kind) + 1
		}
		st.UnitKind = append(st.UnitKind, kind)
	}
	for _, d := range bt.defs {
		st.DefUnit = append(st.DefUnit, int32(d.unit))
		st.DefTerm = append(st.DefTerm, text(d.term))
		st.DefKey = append(st.DefKey, text(d.key))
		st.DefStemCount = append(st.DefStemCount, int32(len(d.stems)))
		for _, s := range d.stems {
			st.DefStems = append(st.DefStems, text(s))
		}
		st.DefInfo = append(st.DefInfo, d.info)
		flags := byte(0)
		if d.glossary {
			flags |= defGlossary
		}
		if d.labelled {
			flags |= defLabelled
		}
		st.DefFlags = append(st.DefFlags, flags)
	}
	for _, s := range bt.sections {
		st.SectionFirst = append(st.SectionFirst, int32(s.first))
		st.SectionWords = append(st.SectionWords, int32(s.words))
		st.SectionAssessment = append(st.SectionAssessment, s.assessment)
	}
	for s := range bt.strs {
		uses := bt.uses[bt.useFirst[s]:bt.useFirst[s+1]]
		st.UseCount = append(st.UseCount, int32(len(uses)))
		for _, u := range uses {
			st.UseSection = append(st.UseSection, u.k)
			st.UseN = append(st.UseN, u.n)
		}
	}
	for _, p := range side.probes {
		st.ProbeQuestion = append(st.ProbeQuestion, text(p.Question))
		st.ProbeSectionCount = append(st.ProbeSectionCount, int32(len(p.Sections)))
		for _, s := range p.Sections {
			st.ProbeSections = append(st.ProbeSections, text(s))
		}
	}
	return st
}

// side checks a kept book side against the book's chunks and builds the
// bookText it describes: every number within its table, every column
// as long as the others say.
func (st *storedSide) side(chunks []rag.Chunk) (*bookSide, error) {
	n := len(st.UnitText)
	for _, col := range [][]int32{st.UnitLead, st.UnitHeadingText, st.UnitHeadingAnchor, st.UnitHeadingLevel, st.UnitChunk, st.UnitPara, st.UnitSection, st.UnitWords} {
		if len(col) != n {
			return nil, errSide
		}
	}
	if len(st.UnitKind) != n || !slices.IsSorted(st.Strs) || len(st.UseCount) != len(st.Strs) ||
		len(st.SectionWords) != len(st.SectionFirst) || len(st.SectionAssessment) != len(st.SectionFirst) {
		return nil, errSide
	}
	nText, nStrs, nSec := int32(len(st.Texts)), int32(len(st.Strs)), int32(len(st.SectionFirst))
	within := func(col []int32, lo, hi int32) bool {
		for _, v := range col {
			if v < lo || v >= hi {
				return false
			}
		}
		return true
	}
	if !within(st.UnitText, 0, nText) || !within(st.UnitLead, 0, nText) || !within(st.UnitHeadingText, 0, nText) ||
		!within(st.UnitHeadingAnchor, 0, nText) || !within(st.UnitChunk, 0, int32(len(chunks))) ||
		!within(st.UnitSection, 0, nSec) || !within(st.UnitWords, 0, int32(len(st.Words))+1) ||
		!within(st.Words, 0, nStrs) || !within(st.SectionFirst, -1, int32(n)) {
		return nil, errSide
	}
	bt := &bookText{strs: st.Strs, words: st.Words, units: make([]placedUnit, n)}
	from := int32(0)
	for i := range bt.units {
		to := from + st.UnitWords[i]
		if to > int32(len(st.Words)) || to < from {
			return nil, errSide
		}
		bt.units[i] = placedUnit{
			text: st.Texts[st.UnitText[i]], lead: st.Texts[st.UnitLead[i]],
			heading:   rag.Heading{Level: int(st.UnitHeadingLevel[i]), Text: st.Texts[st.UnitHeadingText[i]], Anchor: st.Texts[st.UnitHeadingAnchor[i]]},
			chunk:     &chunks[st.UnitChunk[i]],
			ci:        st.UnitChunk[i],
			kind:      unitKind(max(st.UnitKind[i], 1) - 1),
			para:      int(st.UnitPara[i]),
			section:   st.UnitSection[i],
			from:      from,
			to:        to,
			isHeading: st.UnitKind[i] == 0,
		}
		from = to
	}
	if from != int32(len(st.Words)) {
		return nil, errSide
	}
	for i := range st.SectionFirst {
		bt.sections = append(bt.sections, sectionSite{first: int(st.SectionFirst[i]), words: int(st.SectionWords[i]), assessment: st.SectionAssessment[i]})
	}
	if err := st.defs(bt); err != nil {
		return nil, err
	}
	if err := st.uses(bt); err != nil {
		return nil, err
	}
	probes, err := st.probes()
	if err != nil {
		return nil, err
	}
	bt.index()
	return &bookSide{text: bt, probes: probes}, nil
}

func (st *storedSide) defs(bt *bookText) error {
	n := len(st.DefUnit)
	if len(st.DefTerm) != n || len(st.DefKey) != n || len(st.DefStemCount) != n || len(st.DefInfo) != n || len(st.DefFlags) != n {
		return errSide
	}
	// One slice holds every definition's stems.
	stems := make([]string, 0, len(st.DefStems))
	for _, s := range st.DefStems {
		if s < 0 || int(s) >= len(st.Texts) {
			return errSide
		}
		stems = append(stems, st.Texts[s])
	}
	bt.defs = make([]definitionSite, n)
	from := 0
	for i := range n {
		to := from + int(st.DefStemCount[i])
		if st.DefUnit[i] < 0 || int(st.DefUnit[i]) >= len(bt.units) || bt.units[st.DefUnit[i]].isHeading ||
			st.DefTerm[i] < 0 || int(st.DefTerm[i]) >= len(st.Texts) || st.DefKey[i] < 0 || int(st.DefKey[i]) >= len(st.Texts) ||
			to <= from || to > len(stems) {
			return errSide
		}
		bt.defs[i] = definitionSite{unit: int(st.DefUnit[i]), term: st.Texts[st.DefTerm[i]], stems: stems[from:to:to], key: st.Texts[st.DefKey[i]],
			info: st.DefInfo[i], glossary: st.DefFlags[i]&defGlossary != 0, labelled: st.DefFlags[i]&defLabelled != 0}
		from = to
	}
	if from != len(stems) {
		return errSide
	}
	return nil
}

func (st *storedSide) uses(bt *bookText) error {
	if len(st.UseN) != len(st.UseSection) {
		return errSide
	}
	bt.useFirst = make([]int32, len(st.UseCount)+1)
	for s, c := range st.UseCount {
		bt.useFirst[s+1] = bt.useFirst[s] + c
		if c < 0 || int(bt.useFirst[s+1]) > len(st.UseSection) {
			return errSide
		}
	}
	if int(bt.useFirst[len(st.UseCount)]) != len(st.UseSection) {
		return errSide
	}
	bt.uses = make([]sectionUse, len(st.UseSection))
	for i := range bt.uses {
		if st.UseSection[i] < 0 || int(st.UseSection[i]) >= len(bt.sections) {
			return errSide
		}
		bt.uses[i] = sectionUse{k: st.UseSection[i], n: st.UseN[i]}
	}
	return nil
}

func (st *storedSide) probes() ([]Probe, error) {
	if len(st.ProbeSectionCount) != len(st.ProbeQuestion) {
		return nil, errSide
	}
	out := make([]Probe, len(st.ProbeQuestion))
	from := 0
	for i := range out {
		to := from + int(st.ProbeSectionCount[i])
		if st.ProbeQuestion[i] < 0 || int(st.ProbeQuestion[i]) >= len(st.Texts) || to < from || to > len(st.ProbeSections) {
			return nil, errSide
		}
		out[i].Question = st.Texts[st.ProbeQuestion[i]]
		for _, s := range st.ProbeSections[from:to] {
			if s < 0 || int(s) >= len(st.Texts) {
				return nil, errSide
			}
			out[i].Sections = append(out[i].Sections, st.Texts[s])
		}
		from = to
	}
	if from != len(st.ProbeSections) {
		return nil, errSide
	}
	return out, nil
}
