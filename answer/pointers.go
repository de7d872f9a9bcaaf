package answer

import (
	"regexp"
	"strings"
	"unicode"
)

// Pointers: a passage that only points elsewhere does not answer. A
// section often closes on a list of links ("Further reading", "See
// also", or a bare list of page titles), and a link's title may repeat
// the question word for word ("When should I use X?") while the prose
// above it is what answers. Such a passage is quoted with its section
// but is never a candidate of its own.

// closingHeading names a section of pointers by the headings English
// documentation gives them: a generic, documented rule, not a list of any
// book's headings.
var closingHeading = regexp.MustCompile(`(?i)^\s*(?:further\s+reading|see\s+also|references|bibliography|external\s+links|(?:additional|more|other|further)\s+(?:resources|reading|links)|learn\s+more|read\s+more|related\s+(?:reading|links|pages|resources|articles))\s*[:.]?\s*$`)

var (
	markdownLink = regexp.MustCompile(`!?\[[^\]]*\]\([^)]*\)|!?\[[^\]]*\]\[[^\]]*\]|<https?://[^>]*>|https?://\S+`)
	// leftWord is a word a line states besides its links.
	leftWord = regexp.MustCompile(`[\pL\pN][\pL\pN'’-]*`)
)

// maxPointerWords: a line with more words than this besides its links
// says something of its own ("See [the FAQ](...) for the causes of drift").
const maxPointerWords = 2

// pointsOnly reports a unit that is a link and little else: a list item
// or line whose text, without its links, holds at most two words ("- [The
// FAQ](...)", "* [Guide](...) (video)", "See [the FAQ](...)."), or any
// unit of a section of pointers (see closingHeading).
func pointsOnly(u *unit, heading string) bool {
	if closingHeading.MatchString(heading) {
		return true
	}
	if u.kind != item && u.kind != sentence {
		return false
	}
	t := itemLine.ReplaceAllString(strings.TrimSpace(u.text), "")
	rest := markdownLink.ReplaceAllString(t, " ")
	if rest == t {
		return false
	}
	words := leftWord.FindAllString(rest, -1)
	if len(words) > maxPointerWords {
		return false
	}
	for _, w := range words {
		if unicode.IsDigit([]rune(w)[0]) {
			return false // a figure beside a link states something
		}
	}
	return true
}
