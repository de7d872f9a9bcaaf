package page

import (
	"strconv"
	"strings"
	"unicode"
)

// Slug is the Docusaurus (github-slugger) anchor of a heading's text:
// lower case, spaces become '-', punctuation other than '-' and '_' is
// dropped. Repeats within a page are numbered by a slugger.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Slugger numbers repeated anchors of one page "-1", "-2", … as Docusaurus
// does, and keeps custom {#ids} from being reused. The chunker and the
// reader's page use the same one, so a source's anchor is on the page.
type Slugger map[string]int

// Custom reserves a heading's explicit {#id}.
func (s Slugger) Custom(id string) string {
	if _, ok := s[id]; !ok {
		s[id] = 0
	}
	return id
}

// Slug returns the next free anchor for a heading's text.
func (s Slugger) Slug(heading string) string {
	base := Slug(heading)
	id := base
	for {
		if _, taken := s[id]; !taken {
			break
		}
		s[base]++
		id = base + "-" + strconv.Itoa(s[base])
	}
	s[id] = 0
	return id
}
