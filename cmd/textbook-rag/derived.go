package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/datadir"
)

// learnBook is analysis.NewBook of the index's chunks, with the word
// associations kept beside the index in dir when a start of this program
// derived them from these chunks: they are most of what learning a large
// book costs (seconds of CPU and hundreds of MB on a 7 MB book). Else it
// derives them, and keeps them for the next start when keep is set (a
// command that only reads writes nothing); a failure to keep them is a
// warning.
func learnBook(chunks []rag.Chunk, dir string, keep bool, warn io.Writer) *analysis.Book {
	key := derivedKey(chunks)
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
