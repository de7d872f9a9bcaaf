package lexical

import "unicode/utf8"

// emphasized calls f with each span the text sets in bold or italics
// ("**topic**", "*scaffolding*", "__SLAM__"), up to a few words: what the
// pattern
//
//	\*\*([^*\n]{1,60})\*\*|__([^_\n]{1,60})__|(?:^|[\s(])\*([^*\s][^*\n]{0,58})\*
//
// finds, left to right without overlap, in one pass: a book of 100,000
// bold terms is read in a fraction of what a pattern matcher takes.
func emphasized(s string, f func(string)) {
	for i := 0; i < len(s); {
		if end, text, ok := emphasisAt(s, i); ok {
			f(text)
			i = end
			continue
		}
		i++
	}
}

// emphasisAt matches the emphasis pattern's alternatives at i, in its
// order: **bold**, __bold__, then a *starred* span after the text's start,
// a space or an opening bracket. It returns the match's end and its text.
func emphasisAt(s string, i int) (end int, text string, ok bool) {
	switch {
	case s[i] == '*' && i+1 < len(s) && s[i+1] == '*':
		if end, ok := spanTo(s, i+2, '*', 1, 60); ok && end+1 < len(s) && s[end+1] == '*' {
			return end + 2, s[i+2 : end], true
		}
	case s[i] == '_' && i+1 < len(s) && s[i+1] == '_':
		if end, ok := spanTo(s, i+2, '_', 1, 60); ok && end+1 < len(s) && s[end+1] == '_' {
			return end + 2, s[i+2 : end], true
		}
	}
	star := -1
	switch {
	case i == 0 && s[0] == '*':
		star = 0
	case isSpace(s[i]) || s[i] == '(':
		if i+1 < len(s) && s[i+1] == '*' {
			star = i + 1
		}
	}
	if star < 0 || star+1 >= len(s) || s[star+1] == '*' || isSpace(s[star+1]) {
		return 0, "", false
	}
	_, n := utf8.DecodeRuneInString(s[star+1:])
	if end, ok := spanTo(s, star+1+n, '*', 0, 58); ok {
		return end + 1, s[star+1 : end], true
	}
	return 0, "", false
}

// spanTo reads from i a run of min to max runes, none of them stop or a
// line end, that ends right before a stop; it returns where the run ends.
func spanTo(s string, i int, stop byte, min, max int) (int, bool) {
	n := 0
	for i < len(s) && s[i] != stop && s[i] != '\n' {
		if n == max {
			return 0, false
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		n++
	}
	return i, i < len(s) && s[i] == stop && n >= min
}

// isSpace is the pattern's \s: ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
