package page

import (
	"bytes"
	"fmt"
)

// MaxNesting is the deepest nesting a page keeps: blockquotes and list
// items opened on one line ("> > - > …"), and brackets and parentheses
// left open in a paragraph ("[a]([a](…"). The Markdown parser's cost
// grows with the square of such nesting (200,000 levels of blockquote,
// a 400 KB page, took 52 s to read); no book needs more than a handful of
// levels, so deeper nesting is flattened in one linear pass before a page
// is parsed, with a warning, and reading stays linear in the page's size.
const MaxNesting = 32

// LimitNesting returns src with nesting deeper than MaxNesting flattened:
// the container markers past that depth at the start of a line are
// dropped (their text stays), and a bracket or parenthesis opened past
// that depth in a paragraph is escaped, so it reads as the character it
// is. Fenced code is left alone. line is the first line cut (1-based), 0
// when nothing was: src itself is returned then.
func LimitNesting(src []byte) (out []byte, line int) {
	var b *bytes.Buffer // allocated at the first cut
	fence := byte(0)    // the fence character of the code block we are in
	fenceLen := 0
	var open brackets
	copied := 0
	for n, start := 1, 0; start < len(src); n++ {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start + 1
		}
		l := src[start:end]
		body, cut := containerCut(l)
		if fence != 0 {
			if c, k := fenceOf(l[body:]); c == fence && k >= fenceLen && isBlank(l[body+bytes.IndexByte(l[body:], c)+k:]) {
				fence = 0
			}
			start = end
			continue
		}
		if isBlank(l) {
			open = brackets{}
			start = end
			continue
		}
		if c, k := fenceOf(l[body:]); c != 0 {
			fence, fenceLen = c, k
		}
		var esc []int
		if fence == 0 {
			esc = bracketCut(l, body, &open)
		}
		if cut < 0 && len(esc) == 0 {
			start = end
			continue
		}
		if b == nil {
			b = &bytes.Buffer{}
			b.Grow(len(src))
			line = n
		}
		b.Write(src[copied:start])
		from := 0
		if cut >= 0 {
			b.Write(l[:cut])
			from = body
		}
		for _, i := range esc {
			b.Write(l[from:i])
			b.WriteByte('\\')
			from = i
		}
		b.Write(l[from:])
		copied = end
		start = end
	}
	if b == nil {
		return src, 0
	}
	b.Write(src[copied:])
	return b.Bytes(), line
}

// containerCut reads the container markers opening line l: blockquote
// markers and list markers ("-", "*", "+", "1." or "1)" and a space).
// body is where the line's content starts after them; cut is where the
// marker past MaxNesting starts (the markers from cut to body are the
// ones to drop), or -1 when the line is not that deep.
func containerCut(l []byte) (body, cut int) {
	i, depth := 0, 0
	cut = -1
	for {
		j := i
		for j < len(l) && (l[j] == ' ' || l[j] == '\t') {
			j++
		}
		k := markerEnd(l, j)
		if k < 0 {
			return i, cut
		}
		depth++
		if depth == MaxNesting+1 {
			cut = i
		}
		i = k
	}
}

// markerEnd returns the end of the container marker at l[j:], or -1.
func markerEnd(l []byte, j int) int {
	if j >= len(l) {
		return -1
	}
	spaced := func(k int) int {
		if k < len(l) && (l[k] == ' ' || l[k] == '\t') {
			return k + 1
		}
		return -1
	}
	switch c := l[j]; {
	case c == '>':
		return j + 1
	case c == '-' || c == '*' || c == '+':
		return spaced(j + 1)
	case c >= '0' && c <= '9':
		k := j
		for k < len(l) && k-j < 9 && l[k] >= '0' && l[k] <= '9' {
			k++
		}
		if k < len(l) && (l[k] == '.' || l[k] == ')') {
			return spaced(k + 1)
		}
	}
	return -1
}

// brackets counts the brackets and parentheses open in a paragraph: kept
// ones and escaped ones, whose closers close them first.
type brackets struct{ kept, escaped int }

// bracketCut returns the offsets in l, from body on, of the brackets and
// parentheses opened past MaxNesting in the paragraph (open counts those
// open before l). Code spans and escaped characters are skipped.
func bracketCut(l []byte, body int, open *brackets) []int {
	var esc []int
	code := false
	for i := body; i < len(l); i++ {
		switch c := l[i]; {
		case c == '\\':
			i++
		case c == '`':
			code = !code
		case code:
		case c == '[' || c == '(':
			if open.kept >= MaxNesting {
				esc = append(esc, i)
				open.escaped++
				continue
			}
			open.kept++
		case c == ']' || c == ')':
			if open.escaped > 0 {
				open.escaped--
			} else if open.kept > 0 {
				open.kept--
			}
		}
	}
	return esc
}

// fenceOf returns the fence character and length when l opens or closes
// fenced code ("```", "~~~", indented at most 3 spaces), else 0.
func fenceOf(l []byte) (byte, int) {
	i := 0
	for i < len(l) && i < 3 && l[i] == ' ' {
		i++
	}
	if i >= len(l) || l[i] != '`' && l[i] != '~' {
		return 0, 0
	}
	c, k := l[i], 0
	for i+k < len(l) && l[i+k] == c {
		k++
	}
	if k < 3 {
		return 0, 0
	}
	return c, k
}

func isBlank(l []byte) bool {
	return len(bytes.TrimSpace(l)) == 0
}

// NestingWarning says what LimitNesting did to a page, from its first cut.
func NestingWarning(line int) error {
	return fmt.Errorf("nesting deeper than %d levels (blockquotes, lists, brackets) flattened from line %d: the text stays", MaxNesting, line)
}
