package markdown

import (
	"strings"
)

// A Sphinx site's conf.py is Python: the tutor reads it, never runs it.
// Its top-level assignments are resolved statically, in order: a string
// literal (any quotes, prefixes, adjacent literals joined), the name of
// a string assigned above it, a concatenation of those with +, an
// f-string whose fields are such names; a dict (or dict(k=v)) of such
// values; a list, tuple or set of them; name["key"] = value. Anything
// else (a call, an import, a format, an assignment inside a block) gives
// that name no value, and whatever refers to it gives up too.

// sphinxConf is what a conf.py's top-level assignments resolve to.
type sphinxConf struct {
	strs  map[string]string
	dicts map[string]map[string]string
	lists map[string][]string
}

// maxConfExprDepth bounds the parentheses an expression is read through.
const maxConfExprDepth = 16

// pyToken is a token of a conf.py.
type pyToken struct {
	kind byte // 'n' name, 's' string, 'f' f-string, 'o' operator, '?' anything else
	text string
}

// readSphinxConf resolves a conf.py's top-level assignments.
func readSphinxConf(b []byte) sphinxConf {
	c := sphinxConf{strs: map[string]string{}, dicts: map[string]map[string]string{}, lists: map[string][]string{}}
	for _, st := range pyStatements(string(b)) {
		c.assign(st)
	}
	return c
}

// str is the string assigned to name, "" for none.
func (c sphinxConf) str(name string) string { return c.strs[name] }

// assign resolves one statement: name = expr, or name["key"] = expr.
func (c sphinxConf) assign(st []pyToken) {
	if len(st) < 3 || st[0].kind != 'n' {
		return
	}
	name := st[0].text
	if len(st) >= 6 && isOp(st[1], "[") && st[2].kind == 's' && isOp(st[3], "]") && isOp(st[4], "=") {
		if d := c.dicts[name]; d != nil {
			if v, ok := c.strExpr(st[5:], 0); ok {
				d[st[2].text] = v
			}
		}
		return
	}
	if !isOp(st[1], "=") {
		return
	}
	expr := st[2:]
	v, isStr := c.strExpr(expr, 0)
	d, isDict := c.dictExpr(expr)
	l, isList := c.listExpr(expr)
	// A name assigned again holds only its new value, if any.
	delete(c.strs, name)
	delete(c.dicts, name)
	delete(c.lists, name)
	switch {
	case isStr:
		c.strs[name] = v
	case isDict:
		c.dicts[name] = d
	case isList:
		c.lists[name] = l
	}
}

// strExpr resolves a string expression: terms joined by +.
func (c sphinxConf) strExpr(expr []pyToken, depth int) (string, bool) {
	if len(expr) == 0 || depth > maxConfExprDepth {
		return "", false
	}
	var b strings.Builder
	for _, term := range splitTop(expr, "+") {
		v, ok := c.strTerm(term, depth)
		if !ok {
			return "", false
		}
		b.WriteString(v)
	}
	return b.String(), true
}

// strTerm resolves one term: adjacent literals, a name, or a
// parenthesized expression.
func (c sphinxConf) strTerm(term []pyToken, depth int) (string, bool) {
	if len(term) == 0 {
		return "", false
	}
	if isOp(term[0], "(") && closing(term, 0) == len(term)-1 {
		return c.strExpr(term[1:len(term)-1], depth+1)
	}
	if len(term) == 1 && term[0].kind == 'n' {
		v, ok := c.strs[term[0].text]
		return v, ok
	}
	var b strings.Builder
	for _, t := range term {
		switch t.kind {
		case 's':
			b.WriteString(t.text)
		case 'f':
			v, ok := c.fString(t.text)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// fString fills an f-string's fields, each the name of a string.
func (c sphinxConf) fString(body string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		switch ch := body[i]; {
		case ch == '{' && i+1 < len(body) && body[i+1] == '{', ch == '}' && i+1 < len(body) && body[i+1] == '}':
			b.WriteByte(ch)
			i++
		case ch == '{':
			end := strings.IndexByte(body[i:], '}')
			if end < 0 {
				return "", false
			}
			v, ok := c.strs[strings.TrimSpace(body[i+1:i+end])]
			if !ok {
				return "", false // an expression, a format spec, or an unknown name
			}
			b.WriteString(v)
			i += end
		default:
			b.WriteByte(ch)
		}
	}
	return b.String(), true
}

// dictExpr resolves {"k": v, …} or dict(k=v, …); entries whose value
// is not a string are left out.
func (c sphinxConf) dictExpr(expr []pyToken) (map[string]string, bool) {
	var items [][]pyToken
	call := false
	switch {
	case len(expr) >= 2 && isOp(expr[0], "{") && closing(expr, 0) == len(expr)-1:
		items = splitTop(expr[1:len(expr)-1], ",")
	case len(expr) >= 3 && expr[0].kind == 'n' && expr[0].text == "dict" && isOp(expr[1], "(") && closing(expr, 1) == len(expr)-1:
		items, call = splitTop(expr[2:len(expr)-1], ","), true
	default:
		return nil, false
	}
	d := map[string]string{}
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if len(it) < 3 || call && (it[0].kind != 'n' || !isOp(it[1], "=")) || !call && (it[0].kind != 's' || !isOp(it[1], ":")) {
			if !call && len(splitTop(it, ":")) == 1 {
				return nil, false // a set, not a dict
			}
			continue
		}
		if v, ok := c.strExpr(it[2:], 0); ok {
			d[it[0].text] = v
		}
	}
	return d, true
}

// listExpr resolves a list, tuple or set of strings; items that are not
// strings are left out.
func (c sphinxConf) listExpr(expr []pyToken) ([]string, bool) {
	if len(expr) < 2 || !isOp(expr[0], "(") && !isOp(expr[0], "[") && !isOp(expr[0], "{") || closing(expr, 0) != len(expr)-1 {
		return nil, false
	}
	var out []string
	for _, it := range splitTop(expr[1:len(expr)-1], ",") {
		if v, ok := c.strExpr(it, 0); ok {
			out = append(out, v)
		}
	}
	return out, true
}

// closing is the index of the bracket that closes the one at open, -1
// for none.
func closing(ts []pyToken, open int) int {
	depth := 0
	for i := open; i < len(ts); i++ {
		if ts[i].kind != 'o' {
			continue
		}
		switch ts[i].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// isOp reports the operator or bracket op.
func isOp(t pyToken, op string) bool { return t.kind == 'o' && t.text == op }

// splitTop splits tokens at an operator outside brackets.
func splitTop(ts []pyToken, sep string) [][]pyToken {
	var out [][]pyToken
	depth, start := 0, 0
	for i, t := range ts {
		if t.kind != 'o' {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case sep:
			if depth == 0 {
				out = append(out, ts[start:i])
				start = i + 1
			}
		}
	}
	return append(out, ts[start:])
}

// pyStatements are a conf.py's top-level logical lines as tokens: lines
// inside a block (indented) and comments are left out. It reads each
// byte once.
func pyStatements(src string) [][]pyToken {
	var out [][]pyToken
	var cur []pyToken
	depth := 0
	indented, lineStart := false, true
	end := func() {
		if len(cur) > 0 && !indented {
			out = append(out, cur)
		}
		cur, lineStart = nil, true
	}
	for i := 0; i < len(src); {
		ch := src[i]
		switch {
		case ch == '\n':
			i++
			if depth == 0 {
				end()
			}
			continue
		case ch == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case ch == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			continue
		case ch == ' ' || ch == '\t':
			i++
			continue
		}
		if lineStart && depth == 0 {
			indented = i > 0 && (src[i-1] == ' ' || src[i-1] == '\t')
			lineStart = false
		}
		switch {
		case isPyNameStart(ch):
			j := i
			for j < len(src) && (isPyNameStart(src[j]) || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && j-i <= 2 && strings.Trim(strings.ToLower(src[i:j]), "rubf") == "" {
				t, next := pyString(src, j, strings.ToLower(src[i:j]))
				cur = append(cur, t)
				i = next
				continue
			}
			cur = append(cur, pyToken{kind: 'n', text: src[i:j]})
			i = j
		case ch == '"' || ch == '\'':
			t, next := pyString(src, i, "")
			cur = append(cur, t)
			i = next
		case strings.IndexByte("([{", ch) >= 0:
			depth++
			cur = append(cur, pyToken{kind: 'o', text: string(ch)})
			i++
		case strings.IndexByte(")]}", ch) >= 0:
			depth = max(depth-1, 0)
			cur = append(cur, pyToken{kind: 'o', text: string(ch)})
			i++
		case ch == '=' && i+1 < len(src) && src[i+1] == '=':
			cur = append(cur, pyToken{kind: 'o', text: "=="})
			i += 2
		case strings.IndexByte("=+:,.", ch) >= 0:
			cur = append(cur, pyToken{kind: 'o', text: string(ch)})
			i++
		default:
			cur = append(cur, pyToken{kind: '?', text: string(ch)})
			i++
		}
	}
	end()
	return out
}

func isPyNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// pyString reads the string literal whose quote is at src[i], prefix its
// letters (r, u, b, f): its value (escapes read unless raw) and where it
// ends. An unclosed literal runs to the end of its line (of the file
// when tripled).
func pyString(src string, i int, prefix string) (pyToken, int) {
	q := src[i : i+1]
	if strings.HasPrefix(src[i:], q+q+q) {
		q = q + q + q
	}
	raw := strings.Contains(prefix, "r")
	j := i + len(q)
	start := j
	for j < len(src) {
		if src[j] == '\\' && !raw && j+1 < len(src) {
			j += 2
			continue
		}
		if src[j] == '\\' && raw && j+1 < len(src) {
			j += 2 // a raw string still cannot end at an escaped quote
			continue
		}
		if strings.HasPrefix(src[j:], q) {
			break
		}
		if src[j] == '\n' && len(q) == 1 {
			break
		}
		j++
	}
	body := src[start:min(j, len(src))]
	next := min(j+len(q), len(src))
	if j < len(src) && src[j] == '\n' {
		next = j
	}
	if !raw {
		body = pyUnescape(body)
	}
	kind := byte('s')
	if strings.Contains(prefix, "f") {
		kind = 'f'
	}
	return pyToken{kind: kind, text: body}, next
}

// pyUnescape reads the common escapes of a Python string; others stay
// as written.
func pyUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\', '\'', '"':
			b.WriteByte(s[i])
		case '\n':
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
