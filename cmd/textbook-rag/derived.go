package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/datadir"
)

// learnBook is analysis.NewBook of the index's chunks, with the word
// associations kept beside the index in dir when a start of this program
// derived them from these chunks (key, see derivedKey): they are most of
// what learning a large book costs (seconds of CPU and hundreds of MB on
// a 7 MB book). Else it
// derives them, and keeps them for the next start when keep is set (a
// command that only reads writes nothing); a failure to keep them is a
// warning.
func learnBook(chunks []rag.Chunk, dir, key string, keep bool, warn io.Writer) *analysis.Book {
	if dir == "" || key == "" {
		return analysis.NewBook(chunks)
	}
	var related map[string][]analysis.Related
	if err := datadir.LoadDerived(dir, key, &related); err == nil {
		if related == nil {
			related = map[string][]analysis.Related{} // a book with none
		}
		return analysis.NewBookWith(chunks, related)
	}
	book := analysis.NewBook(chunks)
	if keep {
		if err := datadir.SaveDerived(dir, key, book.Associations()); err != nil {
			fmt.Fprintf(warn, "textbook-rag: warning: %s: %v\n", dir, err)
		}
	}
	return book
}

// derivedKey names what learnBook derives from: the program and the
// chunks' ids and texts. "" when the program cannot be read.
func derivedKey(chunks []rag.Chunk) string {
	program := programPrint()
	if program == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "program %s\x00", program)
	for _, c := range chunks {
		fmt.Fprintf(h, "%d\x00%s\x00%d\x00", len(c.ID), c.ID, len(c.Text))
		io.WriteString(h, c.Text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// learnAnswerer builds the answerer of book, with its book side (see
// answer.UseBookSide) read from dir, when first needed, if a start of
// this program kept it there for these chunks (key, see answererKey): a
// start reads the file's header, the first explanation the rest (a file
// that fails then is removed when keep is set, for the next start to
// build again). Else, when keep is set, it builds the book side now
// (every chunk split, as ingest does once) and keeps it, to be read back
// the same way, a failure to keep it being a warning; a command that
// only reads builds it when first needed.
func learnAnswerer(book *analysis.Book, dir, key string, keep bool, warn io.Writer) *answer.Answerer {
	if dir == "" || key == "" {
		return answer.New(book)
	}
	if !datadir.KeptUnder(dir, datadir.AnswererName, key) {
		if !keep {
			return answer.New(book)
		}
		if built, err := keepBookSide(book, dir, key); err != nil {
			fmt.Fprintf(warn, "textbook-rag: warning: %s: %v\n", dir, err)
			return built
		}
	}
	ans := answer.New(book)
	ans.UseBookSide(func() ([]byte, error) { return datadir.ReadKept(dir, datadir.AnswererName, key) }, func(err error) {
		fmt.Fprintf(warn, "textbook-rag: warning: %s: %v; the answerer reads the book again\n", dir, err)
		if keep {
			// The next start that keeps builds it again.
			os.Remove(filepath.Join(dir, datadir.AnswererName))
		}
	})
	return ans
}

// keepBookSide builds the answerer's book side and keeps it in dir under
// key. The answerer that built it is returned, holding it: the one to
// use when keeping it failed.
func keepBookSide(book *analysis.Book, dir, key string) (*answer.Answerer, error) {
	if buildingBookSide != nil {
		buildingBookSide()
	}
	ans := answer.New(book)
	var b bytes.Buffer
	if err := ans.WriteBookSide(&b); err != nil {
		return ans, err
	}
	return ans, datadir.SaveKept(dir, datadir.AnswererName, key, b.Bytes())
}

// buildingBookSide, set by tests, runs when a start or an ingest builds
// the answerer's book side to keep it.
var buildingBookSide func()

// answererKey names what the answerer's book side derives from: what
// derivedKey names (derived, the program and the chunks' texts) and every
// other field of the chunks (their titles, headings and paths place the
// units). "" when derived is.
func answererKey(derived string, chunks []rag.Chunk) string {
	if derived == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "answerer %s\x00", derived)
	enc := json.NewEncoder(h)
	for _, c := range chunks {
		c.Text = "" // in derived
		if err := enc.Encode(c); err != nil {
			return ""
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
