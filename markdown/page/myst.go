package page

import (
	"regexp"
	"strings"
)

// Two MyST directives are not text as written, and are rewritten before
// the page's other markup is read (and a colon-fenced directive that
// shows no text, a `:::{toctree}`, goes with its content):
//
//   - ```` ```{myst-example} ```` (or `:::{myst-example}`), the directive
//     the MyST docs teach their syntax with, shows its source as code
//     and then its rendering: here its source becomes a code block
//     (```md, or its :highlight: language) followed by the same lines,
//     read as the page's own. Its options go.
//   - ```` ```{eval-rst} ```` holds reStructuredText, which the tutor does
//     not render: it becomes its plain text (see rstPlain).

// mystBlockOpen opens a myst-example or an eval-rst, in a backtick,
// tilde or colon fence: indent, fence, name and argument.
var mystBlockOpen = regexp.MustCompile("^(\\s*)(`{3,}|~{3,}|:{3,})\\s*\\{(myst-example|eval-rst)\\}\\s*(.*)$")

// mystBlocks rewrites a page's myst-example and eval-rst blocks outside
// code; other lines are left as they are.
func mystBlocks(lines []string) []string {
	has := false
	for _, l := range lines {
		if strings.Contains(l, "{myst-example}") || strings.Contains(l, "{eval-rst}") || strings.Contains(l, ":::") {
			has = true
			break
		}
	}
	if !has {
		return lines
	}
	out := make([]string, 0, len(lines)+16)
	code := "" // an open code block's fence
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if code != "" {
			out = append(out, line)
			if closesFence(line, code) {
				code = ""
			}
			continue
		}
		if !strings.Contains(line, "{") && !strings.Contains(line, "```") && !strings.Contains(line, "~~~") {
			out = append(out, line) // no directive and no fence: the common line costs no pattern
			continue
		}
		if m := colonDirective.FindStringSubmatch(line); m != nil && droppedDirectives[m[2]] {
			// A colon fence's content is Markdown to the page's other
			// readers; this directive's (a toctree's entries) is none.
			fence := strings.TrimSpace(m[1])
			for i++; i < len(lines) && !closesFence(lines[i], fence); i++ {
			}
			out = append(out, "")
			continue
		}
		if m := mystBlockOpen.FindStringSubmatch(line); m != nil {
			end := i + 1
			for end < len(lines) && !closesFence(lines[end], m[2]) {
				end++
			}
			body := lines[i+1 : end]
			if m[3] == "eval-rst" {
				out = append(out, "")
				out = append(out, rstPlain(body, 0)...)
				out = append(out, "")
			} else {
				out = append(out, mystExample(body, m[1], strings.TrimSpace(m[4]))...)
			}
			i = end // the closing fence
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil && isCodeFence(line) {
			code = m[1]
		}
		out = append(out, line)
	}
	return out
}

// mystExample is a myst-example's source as a code block, then the same
// lines as the page's own. caption is the directive's argument.
func mystExample(body []string, indent, caption string) []string {
	lang := "md"
	if len(body) > 0 && strings.TrimSpace(body[0]) == "---" {
		// Options as a YAML block.
		for i := 1; i < len(body); i++ {
			if strings.TrimSpace(body[i]) == "---" {
				body = body[i+1:]
				break
			}
		}
	}
	for len(body) > 0 && strings.HasPrefix(strings.TrimSpace(body[0]), ":") && mystOption.MatchString(body[0]) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(body[0]), ":highlight:"); ok && strings.TrimSpace(v) != "" {
			lang = strings.TrimSpace(v)
		}
		body = body[1:]
	}
	body = trimBlank(body)
	// The code block's fence is longer than any backtick fence inside.
	n := 3
	for _, l := range body {
		t := strings.TrimSpace(l)
		if k := len(t) - len(strings.TrimLeft(t, "`")); k >= n {
			n = k + 1
		}
	}
	fence := indent + strings.Repeat("`", n)
	out := make([]string, 0, 2*len(body)+8)
	out = append(out, "")
	if caption != "" {
		out = append(out, indent+caption, "")
	}
	out = append(out, fence+lang)
	out = append(out, body...)
	out = append(out, fence, "")
	out = append(out, body...)
	return append(out, "")
}

// The plain text of reStructuredText, as an eval-rst block holds it:
// paragraphs, lists and the text of admonitions, topics and figures'
// captions stay, their roles and links read as their text; code
// directives and literal blocks (after "::") are code blocks; section
// adornments, comments, targets, substitution definitions and the
// directives that show no text of their own or text generated from
// elsewhere (toctree, include, image, raw, autodoc, …) go.
var (
	rstDirective = regexp.MustCompile(`^(\s*)\.\.\s+([\w:.-]+)::(?:\s+(.*))?$`)
	rstExplicit  = regexp.MustCompile(`^(\s*)\.\.(?:\s|$)`)
	rstRole      = regexp.MustCompile(":[\\w:.+-]+:`([^`]*)`")
	rstLiteral   = regexp.MustCompile("``([^`]+)``")
	rstLink      = regexp.MustCompile("`([^`<]*?)\\s*(?:<[^`>]*>)?`__?")
	rstTarget    = regexp.MustCompile(`^(.*?)\s*<[^<>]*>$`)
)

// rstTextDirectives show their content (and, but for figure, their
// argument) as text; rstCodeDirectives show it as code.
var (
	rstTextDirectives = map[string]bool{"note": true, "warning": true, "tip": true, "hint": true, "important": true,
		"caution": true, "attention": true, "danger": true, "error": true, "seealso": true, "admonition": true,
		"versionadded": true, "versionchanged": true, "deprecated": true, "topic": true, "sidebar": true, "rubric": true,
		"epigraph": true, "highlights": true, "pull-quote": true, "container": true, "figure": true, "table": true,
		"list-table": true, "glossary": true, "centered": true, "hlist": true, "compound": true, "line-block": true}
	rstCodeDirectives = map[string]bool{"code-block": true, "code": true, "sourcecode": true, "doctest": true, "testcode": true}
)

// maxRSTDepth bounds the directives read within directives.
const maxRSTDepth = 8

// rstPlain is reStructuredText as plain Markdown (see above); depth
// counts the directives around lines.
func rstPlain(lines []string, depth int) []string {
	lines = dedent(lines)
	out := make([]string, 0, len(lines))
	literal := false // the last paragraph ended in "::"
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		t := strings.TrimSpace(line)
		ind := len(line) - len(strings.TrimLeft(line, " \t"))
		if literal && t != "" {
			literal = false
			if ind > 0 {
				end := rstBlockEnd(lines, i, 0)
				out = append(out, "```")
				out = append(out, trimBlank(dedent(lines[i:end]))...)
				out = append(out, "```", "")
				i = end - 1
				continue
			}
		}
		if m := rstDirective.FindStringSubmatch(line); m != nil {
			end := rstBlockEnd(lines, i+1, ind)
			name, arg := strings.ToLower(m[2]), strings.TrimSpace(m[3])
			body := lines[i+1 : end]
			for len(body) > 0 && mystOption.MatchString(body[0]) {
				body = body[1:] // the directive's options
			}
			switch {
			case rstCodeDirectives[name]:
				out = append(out, "", "```"+arg)
				out = append(out, trimBlank(dedent(body))...)
				out = append(out, "```", "")
			case rstTextDirectives[name] && depth < maxRSTDepth:
				out = append(out, "")
				if arg != "" && name != "figure" {
					out = append(out, rstInline(arg), "")
				}
				out = append(out, rstPlain(body, depth+1)...)
				out = append(out, "")
			}
			i = end - 1
			continue
		}
		if rstExplicit.MatchString(line) {
			i = rstBlockEnd(lines, i+1, ind) - 1
			continue
		}
		if isAdornment(t) {
			continue
		}
		if strings.HasSuffix(t, "::") {
			// "Text::" shows "Text:", "Text ::" shows "Text", "::" nothing.
			literal = true
			line = strings.TrimRight(line, " \t")
			switch {
			case t == "::":
				continue
			case strings.HasSuffix(line, " ::"):
				line = strings.TrimSuffix(line, " ::")
			default:
				line = strings.TrimSuffix(line, ":")
			}
		}
		out = append(out, rstInline(line))
	}
	return out
}

// rstBlockEnd is the end of the block that starts at from, under a line
// indented by ind: the first line past it indented no more than ind.
func rstBlockEnd(lines []string, from, ind int) int {
	for i := from; i < len(lines); i++ {
		t := strings.TrimLeft(lines[i], " \t")
		if t != "" && len(lines[i])-len(t) <= ind {
			return i
		}
	}
	return len(lines)
}

// isAdornment reports a section title's over- or underline: one
// punctuation character, repeated.
func isAdornment(t string) bool {
	if len(t) < 3 || !strings.ContainsRune("=-~^\"'`#*+<>:._!$%&,/;?@\\|", rune(t[0])) {
		return false
	}
	return strings.Trim(t, t[:1]) == ""
}

// rstInline is a line's roles, literals and links as their text.
func rstInline(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	line = rstRole.ReplaceAllStringFunc(line, func(s string) string {
		text := rstRole.FindStringSubmatch(s)[1]
		if m := rstTarget.FindStringSubmatch(text); m != nil && m[1] != "" {
			text = m[1]
		}
		return strings.TrimPrefix(text, "~")
	})
	line = rstLiteral.ReplaceAllString(line, "\x00$1\x00")
	line = rstLink.ReplaceAllString(line, "$1")
	return strings.ReplaceAll(line, "\x00", "`")
}

// dedent takes off the indentation the non-blank lines share.
func dedent(lines []string) []string {
	cut := -1
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if t == "" {
			continue
		}
		if n := len(l) - len(t); cut < 0 || n < cut {
			cut = n
		}
	}
	if cut <= 0 {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= cut {
			out[i] = l[cut:]
		} else {
			out[i] = strings.TrimLeft(l, " \t")
		}
	}
	return out
}

// trimBlank drops the blank lines that open and close lines.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
