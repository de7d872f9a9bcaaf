package page

import (
	"regexp"
	"strings"
)

// Hugo's shortcodes, as the site renders them: a shortcode written over
// several lines is read as one; {{% param "x" %}} is the value the site's
// config gives x; {{< highlight toml >}} … {{< /highlight >}}, and a
// {{< tab >}} of a {{< tabpane >}} whose language is set (Docsy's tabbed
// config examples), are code blocks in that language, their lines as
// written; a tab's header, and a shortcode's title (an alert's), is a
// line of its own. The other shortcodes go (see plainProse), their
// content stays.

// maxShortcodeLines bounds the lines one shortcode's arguments run over:
// a figure's or a tab's are a handful; past that an opening "{{<" is
// taken as text, so the pass stays linear.
const maxShortcodeLines = 20

var (
	// shortcodeLine is a shortcode alone on its line: its name, whether
	// it closes ({{< /tab >}}), its arguments, and whether it closes
	// itself ({{< tab … />}}).
	shortcodeLine  = regexp.MustCompile(`^\s*\{\{[<%]\s*(/?)\s*([\w-]+)(.*?)(/?)\s*[%>]\}\}\s*$`)
	paramShortcode = regexp.MustCompile(`\{\{[<%]\s*param\s+(?:"([^"]*)"|'([^']*)'|([\w.-]+))\s*[%>]\}\}`)
	shortcodeArg   = regexp.MustCompile(`([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))`)
)

// hugoShortcodes reads a page's Hugo shortcodes (see above) before its
// other dialects, outside Markdown code blocks, which keep theirs as
// written.
func hugoShortcodes(lines []string, params map[string]string) []string {
	if !hasShortcode(lines) {
		return lines
	}
	out := make([]string, 0, len(lines))
	fence := ""    // an open Markdown code fence
	codeOf := ""   // the shortcode whose content is code
	paneLang := "" // the open tabpane's language
	paneText := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if codeOf != "" {
			if m := shortcodeLine.FindStringSubmatch(line); m != nil && m[1] == "/" && m[2] == codeOf {
				out = append(out, "```")
				codeOf = ""
				continue
			}
			out = append(out, expandParams(line, params))
			continue
		}
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			out = append(out, line)
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			out = append(out, line)
			continue
		}
		if unclosedShortcode(line) {
			joined := line
			j := i + 1
			for ; j < len(lines) && j-i <= maxShortcodeLines && unclosedShortcode(joined) && strings.TrimSpace(lines[j]) != ""; j++ {
				joined += " " + strings.TrimSpace(lines[j])
			}
			if !unclosedShortcode(joined) {
				line, i = joined, j-1
			}
		}
		line = expandParams(line, params)
		m := shortcodeLine.FindStringSubmatch(line)
		if m == nil {
			out = append(out, line)
			continue
		}
		closing, name, args, self := m[1] == "/", m[2], shortcodeArgs(m[3]), m[4] == "/"
		switch {
		case name == "highlight" && !closing && !self:
			lang := strings.Fields(m[3] + " ")
			l := ""
			if len(lang) > 0 && !strings.Contains(lang[0], "=") {
				l = strings.Trim(lang[0], `"'`)
			}
			out = append(out, "```"+l)
			codeOf = name
		case name == "tabpane":
			paneLang, paneText = "", false
			if !closing {
				paneLang, paneText = args["lang"], args["text"] == "true"
			}
			out = append(out, "")
		case name == "tab" && !closing:
			out = append(out, "")
			if h := args["header"]; h != "" {
				out = append(out, h, "")
			}
			lang, text := paneLang, paneText
			if l, ok := args["lang"]; ok {
				lang = l
			}
			if t, ok := args["text"]; ok {
				text = t == "true"
			}
			if lang != "" && !text && !self {
				out = append(out, "```"+lang)
				codeOf = name
			}
		case !closing && args["title"] != "":
			// An alert's or a card's title is shown above its content.
			out = append(out, "", args["title"], "")
		default:
			out = append(out, line)
		}
	}
	if codeOf != "" {
		out = append(out, "```")
	}
	return out
}

// hasShortcode reports a page with a Hugo shortcode.
func hasShortcode(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "{{<") || strings.Contains(l, "{{%") {
			return true
		}
	}
	return false
}

// unclosedShortcode reports a line that opens more shortcodes than it
// closes, outside its code spans.
func unclosedShortcode(s string) bool {
	if strings.Contains(s, "`") {
		s = outsideCodeSpans(s, func(string) string { return "" })
		s = strings.ReplaceAll(s, "`", "")
	}
	opens := strings.Count(s, "{{<") + strings.Count(s, "{{%")
	return opens > 0 && opens > strings.Count(s, ">}}")+strings.Count(s, "%}}")
}

// expandParams puts each param shortcode's value in its place; one the
// config does not give stays, and goes with the other shortcodes.
func expandParams(line string, params map[string]string) string {
	if len(params) == 0 || !strings.Contains(line, "param") {
		return line
	}
	return paramShortcode.ReplaceAllStringFunc(line, func(s string) string {
		m := paramShortcode.FindStringSubmatch(s)
		if v, ok := params[strings.ToLower(m[1]+m[2]+m[3])]; ok {
			return v
		}
		return s
	})
}

// shortcodeArgs are a shortcode's named arguments.
func shortcodeArgs(s string) map[string]string {
	args := map[string]string{}
	for _, m := range shortcodeArg.FindAllStringSubmatch(s, -1) {
		args[strings.ToLower(m[1])] = m[2] + m[3] + m[4]
	}
	return args
}
