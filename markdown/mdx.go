package markdown

import (
	"regexp"
	"strings"
)

var (
	mdxImport    = regexp.MustCompile(`^import\s+(?:[\w*{}\s,$]+\s+from\s+)?['"][^'"]+['"];?\s*$`)
	mdxExport    = regexp.MustCompile(`^export\s+(?:const|let|var|function|default)\b.*$`)
	componentTag = regexp.MustCompile(`</?[A-Z][\w.]*(?:\s[^<>]*)?/?>`)
	componentRow = regexp.MustCompile(`^\s*(?:</?[A-Z][\w.]*(?:\s[^<>]*)?/?>\s*)+$`)
	mdxComment   = regexp.MustCompile(`\{/\*.*?\*/\}`)
	fenceOpen    = regexp.MustCompile("^\\s{0,3}(`{3,}|~{3,})")
	admonition   = regexp.MustCompile(`^\s*:::\s*([a-z]+)?\s*(.*)$`)
)

// StripMDX turns an MDX or Docusaurus page body into plain Markdown:
// import/export lines, {/* */} comments and the tags of JSX components
// (<Tabs>, <TabItem …>) go, the text between the tags stays; admonition
// markers (":::note Title" … ":::") go, their title and content stay.
// Fenced code is left exactly as it is. The chunker and the reader's page
// both read pages through it, so they see the same text.
func StripMDX(body []byte) []byte {
	lines := strings.Split(string(body), "\n")
	out := make([]string, 0, len(lines)+8)
	fence := ""
	for _, line := range lines {
		if fence != "" {
			out = append(out, line)
			if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			out = append(out, line)
			continue
		}
		if mdxImport.MatchString(line) || mdxExport.MatchString(line) {
			continue
		}
		if m := admonition.FindStringSubmatch(line); m != nil {
			out = append(out, "")
			if title := strings.TrimSpace(m[2]); title != "" {
				out = append(out, title, "")
			}
			continue
		}
		line = mdxComment.ReplaceAllString(line, "")
		if componentRow.MatchString(line) {
			out = append(out, "")
			continue
		}
		out = append(out, stripComponents(line))
	}
	return []byte(strings.Join(out, "\n"))
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
