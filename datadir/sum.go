package datadir

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/textbook-rag/rag"
)

// An index is stored with a sum of everything it holds, the book and its
// chunks exactly as written, and what it was built from (its source,
// options, course and input). A file edited since (a chunk's text
// changed, its chunks emptied, another book's index given our source) no
// longer matches its sum: it is not served but rebuilt. The sum guards
// against edits and damage, not against one who recomputes it.

// ErrCorrupt is Load's error for an index that does not match its sum.
var ErrCorrupt = errors.New("the index does not match the sum stored with it (edited or damaged since it was written)")

// stored is the index file's layout: the book and the chunks kept as the
// bytes they were written as, so the sum is checked over exactly those.
type stored struct {
	Version int             `json:"version"`
	Sum     string          `json:"sum"`
	Book    json.RawMessage `json:"book"`
	Chunks  json.RawMessage `json:"chunks"`
	Options string          `json:"options"`
	Source  string          `json:"source,omitempty"`
	Course  string          `json:"course,omitempty"`
	Input   string          `json:"input,omitempty"`
	// Warnings are summed only when there are some, so an index
	// written before they were kept keeps its sum.
	Warnings []string `json:"warnings,omitempty"`
}

// sum is the stored index's sum: SHA-256 over its fields, each preceded
// by its length so that no two indexes share a sum by moving bytes from
// one field to the next.
func (s stored) sum() string {
	h := sha256.New()
	fields := [][]byte{[]byte("textbook-rag index"), []byte(strconv.Itoa(s.Version)), s.Book, s.Chunks,
		[]byte(s.Options), []byte(s.Source), []byte(s.Course), []byte(s.Input)}
	for _, w := range s.Warnings {
		fields = append(fields, []byte("warning "+w))
	}
	for _, f := range fields {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// encode is the index file of the book and its chunks, with its sum.
func encode(book rag.Book, chunks []rag.Chunk, o SaveOptions) ([]byte, error) {
	st := stored{Version: formatVersion, Options: o.Options, Source: o.Source, Course: o.Course, Input: o.Input, Warnings: o.Warnings}
	var err error
	if st.Book, err = json.Marshal(book); err != nil {
		return nil, err
	}
	if st.Chunks, err = json.Marshal(chunks); err != nil {
		return nil, err
	}
	st.Sum = st.sum()
	return json.Marshal(st)
}
