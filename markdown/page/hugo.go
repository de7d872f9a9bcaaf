package page

import (
	"path"
	"regexp"
	"strings"
)

// Hugo's shortcodes, as the site renders them: a shortcode written over
// several lines is read as one; {{% param "x" %}} is the value the site's
// config gives x; {{< highlight toml >}} … {{< /highlight >}}, and a
// {{< tab >}} of a {{< tabpane >}} whose language is set (Docsy's tabbed
// config examples), are code blocks in that language, their lines as
// written; a tab's header, and a shortcode's title (an alert's), is a
// line of its own. {{< code file="x.go" >}} and {{< code-toggle
// file="hugo" >}} (Hugo's own docs) are code blocks under their file's
// name; a {{< filetree/container >}} of folders and files (Hextra) is the
// tree, indented, in a code block. The other shortcodes go (see
// plainProse), their content stays.
//
// Hugo reads shortcodes before Markdown, so in a Hugo site's code blocks
// and code spans too: there {{% param "x" %}} is its value, and a
// shortcode written escaped to be shown ({{</* name */>}}) shows as
// {{< name >}}. A site is Hugo's when it gives params (nil for a book of
// another layout, whose code keeps its braces as written).

// maxShortcodeLines bounds the lines one shortcode's arguments run over:
// a figure's or a tab's are a handful; past that an opening "{{<" is
// taken as text, so the pass stays linear.
const maxShortcodeLines = 20

var (
	// shortcodeLine is a shortcode alone on its line: its name, whether
	// it closes ({{< /tab >}}), its arguments, and whether it closes
	// itself ({{< tab … />}}).
	shortcodeLine  = regexp.MustCompile(`^\s*\{\{[<%]\s*(/?)\s*([\w-]+(?:/[\w-]+)*)(.*?)(/?)\s*[%>]\}\}\s*$`)
	paramShortcode = regexp.MustCompile(`\{\{[<%]\s*param\s+(?:"([^"]*)"|'([^']*)'|([\w.-]+))\s*[%>]\}\}`)
	shortcodeArg   = regexp.MustCompile(`([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))`)
)

// hugoShortcodes reads a page's Hugo shortcodes (see above) before its
// other dialects. In Markdown code blocks only a Hugo site's params and
// escapes are read.
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
			out = append(out, inHugoCode(line, params))
			continue
		}
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			out = append(out, inHugoCode(line, params))
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
		if params != nil && strings.Contains(line, "`") {
			line = insideCodeSpans(line, func(s string) string { return unescapeShortcodes(s) })
		}
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
		case (name == "code" || name == "code-toggle") && !closing && !self:
			body := codeBody(lines[i+1:], name)
			caption, lang := codeCaption(name, args, body)
			if caption != "" {
				out = append(out, "", caption, "")
			}
			out = append(out, "```"+lang)
			codeOf = name
		case name == "filetree/container" && !closing && !self:
			tree, next := fileTree(lines, i+1)
			out = append(out, "", "```text")
			out = append(out, tree...)
			out = append(out, "```", "")
			i = next - 1
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

// inHugoCode is a line of code as a Hugo site shows it: its params'
// values in place and its escaped shortcodes as written to be shown; a
// book of another layout keeps its code as written.
func inHugoCode(line string, params map[string]string) string {
	if params == nil {
		return line
	}
	return unescapeShortcodes(expandParams(line, params))
}

// shortcodeEscapes are Hugo's escaped shortcode delimiters ({{</* … */>}})
// and what the site shows for each.
var shortcodeEscapes = strings.NewReplacer("{{</*", "{{<", "*/>}}", ">}}", "{{%/*", "{{%", "*/%}}", "%}}")

func unescapeShortcodes(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	return shortcodeEscapes.Replace(s)
}

// insideCodeSpans rewrites the `code spans` of a line.
func insideCodeSpans(line string, rewrite func(string) string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts)-1; i += 2 {
		parts[i] = rewrite(parts[i])
	}
	return strings.Join(parts, "`")
}

// codeBody is the code of a code or code-toggle shortcode: its lines up
// to its closing shortcode (all of them when it is not closed).
func codeBody(lines []string, name string) []string {
	for j, l := range lines {
		if m := shortcodeLine.FindStringSubmatch(l); m != nil && m[1] == "/" && m[2] == name {
			return lines[:j]
		}
	}
	return lines
}

// codeCaption is the file name a code or code-toggle shortcode shows
// above its code, and the code's language. A code shortcode names its
// language (lang), else its file's extension does. A code-toggle shows a
// config (or, with fm=true, a page's front matter) in the format it is
// written in, which its lines tell: JSON, YAML or TOML (the default, as
// Hugo's docs write most); its file is named without an extension
// ("hugo"), which the format gives.
func codeCaption(name string, args map[string]string, body []string) (caption, lang string) {
	file := args["file"]
	if name == "code" {
		lang = args["lang"]
		if lang == "" {
			lang = strings.TrimPrefix(path.Ext(file), ".")
		}
		return file, lang
	}
	lang = configFormat(body)
	if file != "" && path.Ext(file) == "" {
		file += "." + lang
	}
	return file, lang
}

// tomlKey and yamlKey are a config line that sets a key in TOML
// (`title = 'x'`, `[params]`) and in YAML (`title: x`).
var (
	tomlKey = regexp.MustCompile(`^\s*(?:\[[\w."'-]+\]|[\w."'-]+\s*=)`)
	yamlKey = regexp.MustCompile(`^\s*-?\s*[\w."'-]+:(?:\s|$)`)
)

// configFormat tells the format a config snippet is written in by its
// first line that says: json, yaml or toml.
func configFormat(body []string) string {
	for _, l := range body {
		t := strings.TrimSpace(l)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
			continue
		case strings.HasPrefix(t, "{"):
			return "json"
		case tomlKey.MatchString(l):
			return "toml"
		case yamlKey.MatchString(l):
			return "yaml"
		}
	}
	return "toml"
}

// fileTreeItem is a folder or file of a Hextra file tree.
var fileTreeItem = regexp.MustCompile(`\{\{[<%]\s*(/?)\s*filetree/(container|folder|file)\b([^{}]*?)/?\s*[%>]\}\}`)

// fileTree reads a Hextra file tree from lines[from:] up to its closing
// container: the folders ("name/") and files it holds, each indented by
// its depth. next is the line after the tree.
func fileTree(lines []string, from int) (tree []string, next int) {
	depth := 0
	for j := from; j < len(lines); j++ {
		for _, m := range fileTreeItem.FindAllStringSubmatch(lines[j], -1) {
			closing, kind, name := m[1] == "/", m[2], shortcodeArgs(m[3])["name"]
			switch {
			case kind == "container" && closing:
				return tree, j + 1
			case kind == "folder" && closing:
				depth = max(depth-1, 0)
			case kind == "folder":
				tree = append(tree, strings.Repeat("  ", depth)+name+"/")
				depth++
			case kind == "file" && !closing:
				tree = append(tree, strings.Repeat("  ", depth)+name)
			}
		}
	}
	return tree, len(lines)
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
