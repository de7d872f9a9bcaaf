package datadir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// BooksDir is the folder of a data directory that holds one folder per
// book.
const BooksDir = "books"

// BookDir is the folder of the data directory dir that keeps the book
// named source (SaveOptions.Source): books/<slug>-<hash>, the slug
// readable, the hash of the whole source keeping apart two books whose
// folders have the same name.
func BookDir(dir, source string) string {
	return filepath.Join(dir, BooksDir, Key(source))
}

// Key is the name of a book's folder in a data directory.
func Key(source string) string {
	sum := sha256.Sum256([]byte(source))
	return slug(source) + "-" + hex.EncodeToString(sum[:6])
}

// genericFolders are book folder names that say nothing of the book: the
// folder above them names it better.
var genericFolders = []string{"docs", "doc", "src", "content", "book", "pages"}

// slug is a short readable name of a source: "sample" for the built-in
// book, else its folder's name (with the parent's, for "docs" and the
// like), in lower case letters, digits and dashes.
func slug(source string) string {
	if source == SampleSource {
		return "sample"
	}
	name := filepath.Base(source)
	if slices.Contains(genericFolders, strings.ToLower(name)) {
		if parent := filepath.Base(filepath.Dir(source)); parent != "." && parent != string(filepath.Separator) {
			name = parent + "-" + name
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	s := b.String()
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		s = "book"
	}
	return s
}

// Locate returns the folder that keeps the book named source: its own
// folder (BookDir), except for the book whose index a data directory kept
// at its root before books had folders of their own. That book stays at
// the root, its chat history and embeddings with it, until its own folder
// exists; nothing is moved.
func Locate(dir, source string) string {
	own := BookDir(dir, source)
	if _, err := os.Stat(own); err == nil {
		return own
	}
	if h, err := readHeader(dir); err == nil && h.Source != "" && h.Source == source {
		return dir
	}
	return own
}

// Entry is a book whose index a data directory holds.
type Entry struct {
	// Dir is the book's folder: where its index, chat history and
	// embeddings are.
	Dir string
	// Name is the folder's name under books/, or "" for the root.
	Name   string
	Source string
	// Course is the course's name the index recorded, else the book's
	// title.
	Course string
}

// String names the entry for a person choosing among books, on a
// terminal: a folder name or path holding a control character or an
// escape is quoted, so it cannot move the cursor or recolour the screen.
func (e Entry) String() string {
	src := printable(e.Source)
	if e.Source == "" {
		src = "a book of unknown folder"
	}
	if e.Name == "" {
		return fmt.Sprintf("%q (%s, at the data directory's root)", e.Course, src)
	}
	return fmt.Sprintf("%s: %q (%s)", printable(e.Name), e.Course, src)
}

// printable returns s as it is when every character of it prints, else
// quoted with Go's escapes.
func printable(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// header is the part of an index that names its book.
type header struct {
	Version int    `json:"version"`
	Source  string `json:"source"`
	Course  string `json:"course"`
	Book    struct {
		Title string `json:"title"`
	} `json:"book"`
}

func readHeader(dir string) (header, error) {
	var h header
	b, err := ReadFile(filepath.Join(dir, FileName), MaxIndexBytes)
	if err != nil {
		return h, err
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("read %s: corrupt index: %w", dir, err)
	}
	if h.Version != formatVersion {
		return h, fmt.Errorf("read %s: index format %d, want %d: %w", dir, h.Version, formatVersion, ErrNoIndex)
	}
	return h, nil
}

func (h header) entry(dir, name string) Entry {
	e := Entry{Dir: dir, Name: name, Source: h.Source, Course: h.Course}
	if e.Course == "" {
		e.Course = h.Book.Title
	}
	return e
}

// Books lists the books whose index the data directory holds, the root's
// first, then by folder name. It only reads: a folder without a readable
// index is left out.
func Books(dir string) ([]Entry, error) {
	var out []Entry
	if h, err := readHeader(dir); err == nil {
		if _, err := os.Stat(BookDir(dir, h.Source)); h.Source == "" || err != nil {
			out = append(out, h.entry(dir, ""))
		}
	}
	ds, err := os.ReadDir(filepath.Join(dir, BooksDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list the books of %s: %w", dir, err)
	}
	for _, d := range ds {
		if !d.IsDir() {
			continue
		}
		p := filepath.Join(dir, BooksDir, d.Name())
		if h, err := readHeader(p); err == nil {
			out = append(out, h.entry(p, d.Name()))
		}
	}
	return out, nil
}

// Choose picks the book a command that only reads is about: the one named
// name (its folder's name, the start of it, its source, or the course's
// name), or, when name is "", the data directory's only book. No book,
// several, or none of that name is an error that lists what there is.
func Choose(dir, name string) (Entry, error) {
	books, err := Books(dir)
	if err != nil {
		return Entry{}, err
	}
	if len(books) == 0 {
		return Entry{}, fmt.Errorf("%s holds no book's index yet: serve or ingest a book with --data %s first: %w", dir, dir, ErrNoIndex)
	}
	if name == "" {
		if len(books) == 1 {
			return books[0], nil
		}
		return Entry{}, &ChooseError{Dir: dir, Books: books}
	}
	var found []Entry
	for _, b := range books {
		if b.Name == name || b.Source == name || b.Course == name || b.Name != "" && strings.HasPrefix(b.Name, name) {
			found = append(found, b)
		}
	}
	if abs, err := filepath.Abs(name); err == nil && len(found) == 0 {
		for _, b := range books {
			if b.Source == abs {
				found = append(found, b)
			}
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return Entry{}, &ChooseError{Dir: dir, Name: name, Books: books}
}

// ChooseError is Choose's: the book to read is not clear.
type ChooseError struct {
	Dir, Name string
	Books     []Entry
}

func (e *ChooseError) Error() string {
	var b strings.Builder
	if e.Name == "" {
		fmt.Fprintf(&b, "%s holds %d books; choose one with --book NAME or --docs FOLDER:", printable(e.Dir), len(e.Books))
	} else {
		fmt.Fprintf(&b, "%s holds no one book named %q; choose one with --book NAME or --docs FOLDER:", printable(e.Dir), e.Name)
	}
	for _, x := range e.Books {
		b.WriteString("\n  " + x.String())
	}
	return b.String()
}
