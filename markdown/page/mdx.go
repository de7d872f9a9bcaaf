package page

import (
	"regexp"
	"strings"
)

var (
	mdxImport    = regexp.MustCompile(`^import\s+(?:[\w*{}\s,$]+\s+from\s+)?['"][^'"]+['"];?\s*$`)
	mdxImportTop = regexp.MustCompile(`^import\s*(?:\{|\*|[\w$]+\s*(?:,|from\b))`)
	mdxExport    = regexp.MustCompile(`^export\s+(?:const|let|var|function|default|async)\b`)
	componentTag = regexp.MustCompile(`</?[A-Z][\w.]*(?:\s[^<>]*)?/?>`)
	componentRow = regexp.MustCompile(`^\s*(?:</?[A-Z][\w.]*(?:\s[^<>]*)?/?>\s*)+$`)
	mdxComment   = regexp.MustCompile(`\{/\*.*?\*/\}`)
	// commentAnchor is a heading whose anchor is written as an MDX
	// comment, as the React docs do: `## Title {/*title*/}`.
	commentAnchor = regexp.MustCompile(`^( {0,3}#{1,6}[ \t].*?)[ \t]*\{/\*\s*([^*\s]+)\s*\*/\}[ \t]*$`)
	fenceOpen     = regexp.MustCompile("^\\s*(`{3,}|~{3,})\\s*([\\w+-]*)")
	// admonition is a `:::` container's opener: its type (a Docusaurus
	// `:::note`, a Pandoc div's bare class `::: callout-note`) and title.
	admonition = regexp.MustCompile(`^\s*:{3,}\s*([A-Za-z][\w-]*)?\s*(.*)$`)
	// tagStart is a line that opens an HTML or JSX tag (at most three
	// spaces in: more is indented code).
	tagStart = regexp.MustCompile(`^ {0,3}<([A-Za-z][\w.:-]*)`)
	// quizTag names the components of self-assessment widgets, whose
	// content is questions, not teaching.
	quizTag = regexp.MustCompile(`(?i)quiz`)
	anyTag  = regexp.MustCompile(`<(/?)([A-Za-z][\w.]*)[^<>]*?(/?)>`)
)

// StripMDX turns an MDX or Docusaurus page body into plain Markdown:
// import/export statements, {/* */} comments (a heading's trailing
// {/*anchor*/} is its {#anchor}) and the tags of JSX components
// (<Tabs>, <TabItem …>, over several lines too) go, the text between the
// tags stays; quiz components and mermaid diagrams go whole; admonition
// markers (":::note Title" … ":::") go, their title and content stay.
// Hugging Face doc-builder pages read the same way: a heading's trailing
// [[anchor]] becomes its {#anchor}, of each {#if fw === '…'} block only
// the default framework's branch stays, and a GitHub alert's "[!TIP]"
// marker goes. Other fenced code is left exactly as it is. The chunker and the reader's
// page both read pages through it, so they see the same text.
func StripMDX(body []byte) []byte { return stripMDX(body, Vars{}) }

// stripMDX is StripMDX with the site's values for the page's
// placeholders.
func stripMDX(body []byte, vars Vars) []byte {
	lines := strings.Split(string(body), "\n")
	lines = substitute(hugoShortcodes(mystBlocks(lines), vars.Params), vars)
	lines = selectFramework(plainDialects(lines))
	out := make([]string, 0, len(lines)+8)
	fence, dropFence := "", false
	quizDepth := 0
	// Statements and tags are looked for over several lines only past
	// the lines a failed look covered, so the work stays linear.
	scanned := -1
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence != "" {
			if !dropFence {
				out = append(out, line)
			}
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			// A diagram's source is not text a reader reads.
			dropFence = strings.EqualFold(m[2], "mermaid") || quizDepth > 0
			if !dropFence {
				out = append(out, line)
			}
			continue
		}
		if quizDepth > 0 {
			quizDepth += quizNesting(line)
			continue
		}
		if mdxImport.MatchString(line) {
			continue
		}
		if i > scanned && (mdxImportTop.MatchString(line) || mdxExport.MatchString(line)) {
			end, ok := statementEnd(lines, i)
			if !ok {
				scanned = end
			}
			i = end
			continue
		}
		if m := admonition.FindStringSubmatch(line); m != nil {
			out = append(out, "")
			title := strings.TrimSpace(m[2])
			title = strings.TrimSuffix(strings.TrimPrefix(title, "["), "]")
			if len(title) >= 2 && title[0] == '"' && title[len(title)-1] == '"' {
				title = title[1 : len(title)-1] // `::: note "Title"`
			}
			if title != "" {
				out = append(out, title, "")
			}
			continue
		}
		if m := tagStart.FindStringSubmatch(line); m != nil && i > scanned {
			// A tag whose attributes run over several lines is dropped
			// whole; a quiz component with everything inside it.
			end, col, selfClosed, ok := tagEnd(lines, i)
			if !ok {
				scanned = end
			}
			if ok && (end > i || quizTag.MatchString(m[1])) {
				if quizTag.MatchString(m[1]) && !selfClosed {
					quizDepth = 1 + quizNesting(lines[end][min(col+1, len(lines[end])):])
				}
				out = append(out, "")
				i = end
				continue
			}
		}
		if m := commentAnchor.FindStringSubmatch(line); m != nil && idSafe.MatchString(m[2]) {
			line = m[1] + " {#" + m[2] + "}"
		}
		line = mdxComment.ReplaceAllString(line, "")
		if componentRow.MatchString(line) {
			out = append(out, "")
			continue
		}
		out = append(out, docLine(stripComponents(line)))
	}
	return []byte(strings.Join(out, "\n"))
}

// statementEnd finds the last line of an import or export that starts at
// line i: where its brackets balance and it ends. One that does not end
// within 200 lines or at a blank line is taken as the line alone (ok
// false, end the last line looked at).
func statementEnd(lines []string, i int) (end int, ok bool) {
	depth := 0
	j := i
	for ; j < len(lines) && j < i+200; j++ {
		if j > i && strings.TrimSpace(lines[j]) == "" {
			return j, false
		}
		depth += strings.Count(lines[j], "{") + strings.Count(lines[j], "(") + strings.Count(lines[j], "[")
		depth -= strings.Count(lines[j], "}") + strings.Count(lines[j], ")") + strings.Count(lines[j], "]")
		t := strings.TrimSpace(lines[j])
		if depth <= 0 && (j > i || !strings.HasSuffix(t, "=") && !strings.HasSuffix(t, "(") && !strings.HasSuffix(t, "{")) {
			return j, true
		}
	}
	return j - 1, false
}

// tagEnd finds the line where the tag opened on line i closes: the first
// '>' outside quotes and {…} expressions. It reports whether the tag
// closes itself ("/>"). end and col are the line and byte of the closing
// '>'. A tag still open at a blank line, at the start of another tag or
// after 500 lines is no tag (ok false, end the last line looked at).
func tagEnd(lines []string, i int) (end, col int, selfClosed, ok bool) {
	depth := 0
	var quote byte
	j := i
	for ; j < len(lines) && j < i+500; j++ {
		l := lines[j]
		start := 0
		if j == i {
			start = strings.IndexByte(l, '<') + 1
		} else if depth <= 0 && quote == 0 && (strings.TrimSpace(l) == "" || tagStart.MatchString(l)) {
			return j - 1, 0, false, false
		}
		for k := start; k < len(l); k++ {
			c := l[k]
			switch {
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"' || c == '\'' || c == '`':
				quote = c
			case c == '{':
				depth++
			case c == '}':
				depth--
			case c == '>' && depth <= 0:
				return j, k, k > 0 && l[k-1] == '/', true
			}
		}
	}
	return j - 1, 0, false, false
}

// quizNesting counts quiz components opened minus closed on a line.
func quizNesting(line string) int {
	n := 0
	for _, m := range anyTag.FindAllStringSubmatch(line, -1) {
		if !quizTag.MatchString(m[2]) || m[3] == "/" {
			continue
		}
		if m[1] == "/" {
			n--
		} else {
			n++
		}
	}
	return n
}

// stripComponents drops component tags from a line, leaving code spans
// (between backticks) alone.
func stripComponents(line string) string {
	if !strings.Contains(line, "<") {
		return line
	}
	parts := strings.Split(line, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = componentTag.ReplaceAllString(parts[i], "")
	}
	return strings.Join(parts, "`")
}

// closesFence reports a line that closes a code fence opened by fence
// (``` or ~~~, three or more): the same characters, at least as many, and
// nothing else.
func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}
