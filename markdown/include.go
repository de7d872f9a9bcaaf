package markdown

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/textbook-rag/rag/markdown/page"
)

// An mdBook page pulls text from other files with links:
// {{#include file.rs}}, {{#include file.rs:2:10}} (lines 2 to 10),
// {{#include file.rs:name}} (between "ANCHOR: name" and "ANCHOR_END: name"),
// {{#rustdoc_include …}} (the same lines are shown) and
// {{#playground file.rs}} (the file as a Rust code block). A link written
// \{{#include …}} is text. The path is relative to the page.

var (
	mdBookLink  = regexp.MustCompile(`\\\{\{#[^}]*\}\}|\{\{\s*#([A-Za-z0-9_]+)\s+([^}]+)\}\}`)
	anchorStart = regexp.MustCompile(`ANCHOR:\s*([\w-]+)`)
	anchorEnd   = regexp.MustCompile(`ANCHOR_END:\s*([\w-]+)`)
)

// maxIncludeDepth bounds includes within included files, as mdBook does.
const maxIncludeDepth = 10

// includes reports whether an mdBook link of this kind reads a file.
func includes(kind string) bool {
	switch kind {
	case "include", "rustdoc_include", "playground", "playpen":
		return true
	}
	return false
}

// includeTarget is the file an include link names, relative to the
// including file, or an error when it leads out of the book.
func includeTarget(from, args string) (string, error) {
	fields := strings.Fields(args)
	if len(fields) == 0 {
		return "", errors.New("names no file")
	}
	name, _, _ := strings.Cut(fields[0], ":")
	p := path.Join(path.Dir(from), name)
	if path.IsAbs(name) || !fs.ValidPath(p) || p == "." {
		return "", fmt.Errorf("%s leads out of the book", name)
	}
	return p, nil
}

// Quarto's {{< include file >}} and R Markdown's child chunks
// (```{r, child="file.Rmd"}) name files the tutor does not read; one
// that leads out of the book is named in a warning, as an mdBook include
// is, rather than going without a word.
var (
	quartoInclude = regexp.MustCompile(`\{\{<\s*include\s+([^\s>]+)\s*>\}\}`)
	childChunk    = regexp.MustCompile("(?m)^\\s*(?:`{3,}|~{3,})\\s*\\{[^}]*\\bchild\\s*=\\s*[\"']([^\"']+)[\"']")
)

// warnOutsideIncludes warns of the Quarto includes and child chunks of
// page that lead out of the book.
func warnOutsideIncludes(page string, src []byte, opts Options) {
	if !bytes.Contains(src, []byte("include")) && !bytes.Contains(src, []byte("child")) {
		return
	}
	for _, m := range quartoInclude.FindAllSubmatch(src, -1) {
		if _, err := includeTarget(page, string(m[1])); err != nil {
			opts.warn(page, fmt.Errorf("%s left out: %w", m[0], err))
		}
	}
	for _, m := range childChunk.FindAllSubmatch(src, -1) {
		if _, err := includeTarget(page, string(m[1])); err != nil {
			opts.warn(page, fmt.Errorf("the child chunk of %s left out: %w", m[1], err))
		}
	}
}

// includedFiles lists the files a text's include links name, relative to
// file (links that lead out of the book are left out).
func includedFiles(file string, text []byte) []string {
	var out []string
	for _, m := range mdBookLink.FindAllSubmatch(text, -1) {
		if m[1] == nil || !includes(string(m[1])) {
			continue
		}
		if p, err := includeTarget(file, string(m[2])); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Includes are expanded page by page, so a few small files that include
// each other many times would multiply the book (11 files of 2 KB, each
// including the next four times, ask for 4^10 copies). What includes add
// to a whole book is bounded too: a book quotes its files a few times
// over, not thousands, so the budget is baseIncludeBytes and twice the
// book's own files. Each include costs its text and includeCost, so that
// empty files cannot be included without end.
const (
	baseIncludeBytes = 1 << 20
	includeCost      = 256
)

// includeBudget is what includes may still add to the book; it warns
// once, when it runs out.
type includeBudget struct {
	total, left int64
	warned      bool
}

// newIncludeBudget is the budget of the book in fsys.
func newIncludeBudget(fsys fs.FS) *includeBudget {
	var size int64
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
			}
		}
		return nil
	})
	total := baseIncludeBytes + 2*size
	return &includeBudget{total: total, left: total}
}

// errBudget is an include's error once the book's budget has run out.
var errBudget = errors.New("the book's includes have run out of room")

// expander replaces a page's include links with what they name.
type expander struct {
	fsys fs.FS
	page string
	opts Options
	// room is how many more bytes includes may add: a page grows to at
	// most the size limit of a file.
	room   int64
	budget *includeBudget
}

// expandIncludes replaces the mdBook links of a page with the text they
// name, read from the book (never from outside it), within the book's
// budget. A link that cannot be resolved goes (its line, when it stands
// alone) with a warning; a {{#title}} link goes; links of other
// preprocessors stay as they are.
func expandIncludes(fsys fs.FS, page string, src []byte, opts Options, budget *includeBudget) []byte {
	if !mdBookLink.Match(src) {
		return src
	}
	x := &expander{fsys: fsys, page: page, opts: opts, room: opts.MaxFileBytes, budget: budget}
	return []byte(x.expand(page, string(src), 0))
}

func (x *expander) expand(file, s string, depth int) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, line := range lines {
		ms := mdBookLink.FindAllStringSubmatchIndex(line, -1)
		if ms == nil {
			b.WriteString(line)
			continue
		}
		var out strings.Builder
		at, dropped := 0, 0
		for _, m := range ms {
			out.WriteString(line[at:m[0]])
			at = m[1]
			link := line[m[0]:m[1]]
			if m[2] < 0 {
				out.WriteString(link[1:]) // escaped: the link as text
				continue
			}
			kind, args := line[m[2]:m[3]], strings.TrimSpace(line[m[4]:m[5]])
			switch {
			case kind == "title":
				dropped++
			case !includes(kind):
				out.WriteString(link)
			default:
				text, err := x.include(file, kind, args, depth)
				if errors.Is(err, errBudget) {
					if !x.budget.warned {
						x.budget.warned = true
						x.opts.warn(x.page, fmt.Errorf("%s and every later include of the book left out: includes may add %s to this book (1 MiB and twice its files), and it asks for more", link, byteSize(x.budget.total)))
					}
					dropped++
					continue
				}
				if err != nil {
					x.opts.warn(x.page, fmt.Errorf("%s left out: %w", link, err))
					dropped++
					continue
				}
				out.WriteString(text)
			}
		}
		out.WriteString(line[at:])
		if dropped == len(ms) && strings.TrimSpace(out.String()) == "" {
			continue // the line held only links that went
		}
		b.WriteString(out.String())
	}
	return b.String()
}

// include reads what one link names, its own links expanded.
func (x *expander) include(from, kind, args string, depth int) (string, error) {
	if x.budget.left < includeCost {
		return "", errBudget
	}
	if depth >= maxIncludeDepth {
		return "", fmt.Errorf("included files nest deeper than %d levels", maxIncludeDepth)
	}
	target, err := includeTarget(from, args)
	if err != nil {
		return "", err
	}
	fields := strings.Fields(args)
	_, sel, _ := strings.Cut(fields[0], ":")
	b, err := readFile(x.fsys, target, x.opts.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: no such file in the book", target)
	}
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not valid UTF-8", target)
	}
	text, err := selectLines(string(page.CleanText(b)), sel)
	if err != nil {
		return "", fmt.Errorf("%s: %w", target, err)
	}
	if kind == "playground" || kind == "playpen" {
		info := "rust"
		if len(fields) > 1 {
			info += "," + strings.Join(fields[1:], ",")
		}
		text = "```" + info + "\n" + text + "\n```"
	}
	if int64(len(text)) > x.room {
		return "", fmt.Errorf("the page would pass the limit of %s per file", byteSize(x.opts.MaxFileBytes))
	}
	cost := int64(len(text)) + includeCost
	if cost > x.budget.left {
		x.budget.left = 0
		return "", errBudget
	}
	x.room -= int64(len(text))
	x.budget.left -= cost
	return x.expand(target, text, depth+1), nil
}

// selectLines picks the lines an include asks for: all ("" or nothing
// after the colon), line n ("n"), lines a to b ("a:b", either may be
// left out), or the lines between the anchor lines of a name. Anchor
// lines themselves are never shown: they mark the file for mdBook, they
// are not text for the reader. The text ends without a line break.
func selectLines(text, sel string) (string, error) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	from, to := 1, len(lines)
	switch a, b, isRange := strings.Cut(sel, ":"); {
	case sel == "":
	case isRange:
		var err error
		if from, err = lineNumber(a, 1); err == nil {
			to, err = lineNumber(b, len(lines))
		}
		if err != nil {
			return "", err
		}
	case isDigits(sel):
		n, err := lineNumber(sel, 1)
		if err != nil {
			return "", err
		}
		from, to = n, n
	default:
		return anchored(lines, sel)
	}
	from, to = max(from, 1), min(to, len(lines))
	var out []string
	for i := from - 1; i < to; i++ {
		if !isAnchorLine(lines[i]) {
			out = append(out, lines[i])
		}
	}
	return strings.Join(out, "\n"), nil
}

func lineNumber(s string, empty int) (int, error) {
	if s == "" {
		return empty, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a line number", s)
	}
	return n, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func isAnchorLine(l string) bool {
	return anchorStart.MatchString(l) || anchorEnd.MatchString(l)
}

// anchored returns the lines between "ANCHOR: name" and "ANCHOR_END: name".
func anchored(lines []string, name string) (string, error) {
	var out []string
	in := false
	for _, l := range lines {
		if !in {
			if m := anchorStart.FindStringSubmatch(l); m != nil && m[1] == name {
				in = true
			}
			continue
		}
		if m := anchorEnd.FindStringSubmatch(l); m != nil && m[1] == name {
			return strings.Join(out, "\n"), nil
		}
		if !isAnchorLine(l) {
			out = append(out, l)
		}
	}
	if in {
		return strings.Join(out, "\n"), nil // mdBook reads an unclosed anchor to the end
	}
	return "", fmt.Errorf("no anchor %q", name)
}
