package answer

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/internal/testbook"
)

// explainSelections are selections of the Explain book that reach each
// part of an explanation: a lead-in, a list's lead, definitions, links.
var explainSelections = []string{stampSelection, stampRendered, itemsSelection, itemsRendered, headedSelection,
	qosSelection2, absoluteSelection, breadSelection}

// An answerer that reads the book side another wrote for its book
// explains and probes as the one that built it, without splitting a
// chunk of the book.
func TestBookSideKept(t *testing.T) {
	chunks, err := testbook.ExplainChunks()
	if err != nil {
		t.Fatal(err)
	}
	book := analysis.NewBook(chunks)
	built := New(book)
	var kept bytes.Buffer
	if err := built.WriteBookSide(&kept); err != nil {
		t.Fatal(err)
	}
	if built.splits.Load() != int64(len(chunks)) {
		t.Errorf("writing the book side split %d chunks, want each of the %d once", built.splits.Load(), len(chunks))
	}
	read := New(book)
	reads := 0
	read.UseBookSide(func() ([]byte, error) { reads++; return kept.Bytes(), nil }, func(err error) { t.Errorf("the kept book side was not read: %v", err) })
	q := read.Read("What does this mean?")
	for _, sel := range explainSelections {
		want, wok := built.ExplainSelection(q, sel)
		got, ok := read.ExplainSelection(q, sel)
		if ok != wok || !reflect.DeepEqual(got, want) {
			t.Errorf("%.40q: read %+v, built %+v", sel, got, want)
		}
	}
	if got, want := read.DefinitionProbes(), built.DefinitionProbes(); !reflect.DeepEqual(got, want) {
		t.Errorf("probes read %v, built %v", got, want)
	}
	if n := read.splits.Load(); n != 0 {
		t.Errorf("the answerer that read the book side split %d chunks", n)
	}
	if reads != 1 {
		t.Errorf("the book side was read %d times, want once", reads)
	}
}

// A kept book side that cannot be read, does not decode, or was written
// for another book is not used: the answerer says why and builds its own.
func TestBookSideNotFitting(t *testing.T) {
	chunks, err := testbook.ExplainChunks()
	if err != nil {
		t.Fatal(err)
	}
	var kept bytes.Buffer
	if err := New(analysis.NewBook(chunks)).WriteBookSide(&kept); err != nil {
		t.Fatal(err)
	}
	fewer := analysis.NewBook(chunks[:len(chunks)/2])
	want := New(fewer)
	q := want.Read("What does this mean?")
	wantExp, _ := want.ExplainSelection(q, stampSelection)
	tests := []struct {
		name string
		read func() ([]byte, error)
	}{
		{"unreadable", func() ([]byte, error) { return nil, errors.New("gone") }},
		{"cut short", func() ([]byte, error) { return kept.Bytes()[:kept.Len()/2], nil }},
		{"not gob", func() ([]byte, error) { return []byte("not a book side"), nil }},
		{"another book's", func() ([]byte, error) { return kept.Bytes(), nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans := New(fewer)
			var failed error
			ans.UseBookSide(tt.read, func(err error) { failed = err })
			got, _ := ans.ExplainSelection(q, stampSelection)
			if failed == nil {
				t.Error("no failure was told")
			}
			if !reflect.DeepEqual(got, wantExp) {
				t.Errorf("explained %+v, want %+v (the book side built)", got, wantExp)
			}
		})
	}
}

// largeChunks makes the chunks of a book like the one of issue 47: 2,000
// sections of 50 sentences with a bold term each (100,000 terms), three
// chunks a section. Its words are numbers spelled in syllables, one in
// five a function word.
func largeChunks() []rag.Chunk {
	r := rand.New(rand.NewPCG(47, 47))
	spell := func(n int) string {
		const syllables = "kalominerutavosidegapezurinobehalimotexu"
		var b strings.Builder
		for ; n > 0 || b.Len() < 4; n /= 20 {
			b.WriteString(syllables[2*(n%20) : 2*(n%20)+2])
		}
		return b.String()
	}
	sentence := func() string {
		n := 6 + r.IntN(6)
		words := make([]string, n)
		for j := range words {
			switch {
			case j == n/2:
				words[j] = "**" + spell(r.IntN(40000)) + " " + spell(r.IntN(40000)) + "**"
			case r.IntN(5) == 0:
				words[j] = analysisWords[r.IntN(len(analysisWords))]
			default:
				words[j] = spell(r.IntN(40000))
			}
		}
		return "The " + strings.Join(words, " ") + "."
	}
	var chunks []rag.Chunk
	for s := range 2000 {
		chapter := fmt.Sprintf("module-%02d/%02d-chapter", s/200, s/20%10)
		heading := "Section " + spell(s)
		for part := range 3 {
			var text []string
			for range 16 + part/2 {
				text = append(text, sentence())
			}
			chunks = append(chunks, rag.Chunk{ID: fmt.Sprintf("%s#%d-%d", chapter, s, part), ChapterPath: chapter, ChapterTitle: "Chapter " + chapter,
				SectionHeading: heading, Anchor: fmt.Sprintf("s%d", s), Text: "## " + heading + "\n\n" + strings.Join(text, " ")})
		}
	}
	return chunks
}

// analysisWords are function words the made-up sentences use.
var analysisWords = strings.Fields("of and is to in that it with as for on by this are be from or an")

// BenchmarkBookSide is what the book side of the large book costs:
// building it (at ingest), and reading it back (an explanation's first
// need), in CPU seconds, the bytes kept and the live heap it takes
// (issue 47: the first explanation within 2 s of CPU).
//
//	go test ./answer -run '^$' -bench BookSide -benchtime 1x
func BenchmarkBookSide(b *testing.B) {
	chunks := largeChunks()
	book := analysis.NewBook(chunks)
	var kept bytes.Buffer
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			kept.Reset()
			if err := New(book).WriteBookSide(&kept); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(kept.Len())/1e6, "file-MB")
	})
	b.Run("read", func(b *testing.B) {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		var side *bookSide
		for b.Loop() {
			ans := New(book)
			ans.UseBookSide(func() ([]byte, error) { return kept.Bytes(), nil }, func(err error) { b.Fatal(err) })
			side = ans.bookSide()
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc-before)/1e6, "live-MB")
		runtime.KeepAlive(side)
	})
	b.Run("explain", func(b *testing.B) {
		sel := chunks[len(chunks)/2].Text[strings.Index(chunks[len(chunks)/2].Text, "\n\n")+2:][:200]
		for b.Loop() {
			ans := New(book)
			ans.UseBookSide(func() ([]byte, error) { return kept.Bytes(), nil }, func(err error) { b.Fatal(err) })
			start := time.Now()
			if _, ok := ans.ExplainSelection(ans.Read("What does this mean?"), sel); !ok {
				b.Fatal("not explained")
			}
			b.ReportMetric(time.Since(start).Seconds(), "first-s")
		}
	})
}
