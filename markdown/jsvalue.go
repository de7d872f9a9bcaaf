package markdown

import "strings"

// A small reader of JavaScript and TypeScript literals (objects, arrays,
// strings), enough to read a Docusaurus sidebar file without running it.
// Anything else (calls, spreads, identifiers, type annotations) is
// skipped as an unknown value. It reads each token once.

type jsToken struct {
	text string
	str  bool // a string literal; text is its value
}

// jsTokens splits the source into strings, words and punctuation,
// leaving out white space and comments. A template with substitutions is
// one unknown token.
func jsTokens(s string) []jsToken {
	var toks []jsToken
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			i = skipComment(s, i)
		case c == '\'' || c == '"' || c == '`':
			text, end, _ := stringAt(s, i)
			if c == '`' && strings.Contains(s[i:end], "${") {
				toks = append(toks, jsToken{text: "`"})
			} else {
				toks = append(toks, jsToken{text: text, str: true})
			}
			i = max(end, i+1)
		case isIdentPart(rune(c)):
			j := i
			for j < len(s) && isIdentPart(rune(s[j])) {
				j++
			}
			toks = append(toks, jsToken{text: s[i:j]})
			i = j
		default:
			toks = append(toks, jsToken{text: s[i : i+1]})
			i++
		}
	}
	return toks
}

type jsKind int

const (
	jsOther jsKind = iota
	jsString
	jsArray
	jsObject
)

type jsField struct {
	key string
	val jsValue
}

type jsValue struct {
	kind   jsKind
	text   string
	items  []jsValue
	fields []jsField
}

// field is the value of an object's key, an unknown value when it has
// none.
func (v jsValue) field(key string) jsValue {
	for _, f := range v.fields {
		if f.key == key {
			return f.val
		}
	}
	return jsValue{}
}

type jsParser struct {
	toks []jsToken
	pos  int
}

func (p *jsParser) peek() jsToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return jsToken{}
}

func (p *jsParser) is(text string) bool {
	t := p.peek()
	return !t.str && t.text == text && p.pos < len(p.toks)
}

// value reads the value at the current token.
func (p *jsParser) value(depth int) jsValue {
	if depth > 2*maxTocDepth {
		p.skipValue()
		return jsValue{}
	}
	t := p.peek()
	switch {
	case p.pos >= len(p.toks):
		return jsValue{}
	case t.str:
		p.pos++
		// "a" + "b" and the like are expressions, not read.
		if !p.is(",") && !p.is("]") && !p.is("}") && !p.is(";") && !p.is("as") && p.pos < len(p.toks) {
			p.skipValue()
			return jsValue{}
		}
		return jsValue{kind: jsString, text: t.text}
	case t.text == "[":
		p.pos++
		v := jsValue{kind: jsArray}
		for p.pos < len(p.toks) && !p.is("]") {
			if p.is(",") {
				p.pos++
				continue
			}
			start := p.pos
			v.items = append(v.items, p.value(depth+1))
			if p.pos == start {
				p.pos++
			}
		}
		p.pos++
		return v
	case t.text == "{":
		p.pos++
		v := jsValue{kind: jsObject}
		for p.pos < len(p.toks) && !p.is("}") {
			if p.is(",") {
				p.pos++
				continue
			}
			start := p.pos
			key := p.peek()
			if !key.str && key.text == "." || !key.str && key.text == "[" {
				p.skipValue() // a spread or a computed key
			} else {
				p.pos++
				if p.is(":") {
					p.pos++
					v.fields = append(v.fields, jsField{key: key.text, val: p.value(depth + 1)})
				} else {
					p.skipValue()
				}
			}
			if p.pos == start {
				p.pos++
			}
		}
		p.pos++
		return v
	}
	p.skipValue()
	return jsValue{}
}

// skipValue moves past an unknown value: to the next comma or closing
// bracket outside brackets.
func (p *jsParser) skipValue() {
	depth := 0
	for ; p.pos < len(p.toks); p.pos++ {
		t := p.toks[p.pos]
		if t.str {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth == 0 {
				return
			}
			depth--
		case ",", ";":
			if depth == 0 {
				return
			}
		}
	}
}
