// Package page reads one page of a book: its front matter, its MDX and
// its dialects' markup (MyST, Quarto, bookdown, doc-builder, …) as the
// site shows them, a notebook's cells, and cuts the page into chunks for
// retrieval: split at `##`, then at `###` and at block boundaries when a
// section is too big, small pieces joined to a neighbour, adjacent chunks
// overlapping a little. Which pages a book has, in which order and under
// which titles, is the site's business (package markdown), not a page's.
package page

// Page is one page read: its front matter, its body as plain Markdown and
// the body's top-level blocks.
type Page struct {
	FrontMatter FrontMatter
	// Body is the page's Markdown without front matter and MDX syntax,
	// with clean line endings.
	Body []byte
	// Heading is the text of the page's first # heading, "" for none.
	Heading string

	blocks []block
}

// Read reads a page's raw bytes (UTF-8, nesting already limited).
func Read(raw []byte) *Page { return ReadWith(raw, Vars{}) }

// Title is the page's own title: its front-matter title, else its first
// # heading, "" for neither.
func (p *Page) Title() string {
	if t := p.FrontMatter["title"]; t != "" {
		return t
	}
	return p.Heading
}

// CleanText gives a page Unix line endings (CRLF and lone CR become LF)
// and drops control characters other than tab and newline (NUL, escape
// sequences, ...): they mean nothing to a reader and some stores reject
// them. Form feeds and vertical tabs become spaces.
func CleanText(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			out = append(out, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case c == '\f' || c == '\v':
			out = append(out, ' ')
		case c == '\n' || c == '\t':
			out = append(out, c)
		case c < 0x20 || c == 0x7f:
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] < 0xa0:
			i++ // a C1 control character, U+0080 to U+009F
		default:
			out = append(out, c)
		}
	}
	return out
}
