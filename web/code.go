package web

import (
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// codeTitle is a fence's caption, title="a.py": MkDocs and Docusaurus
// write it so, and the page reader writes a Quarto cell's filename so.
var codeTitle = regexp.MustCompile(`(?:^|\s)title="([^"]*)"`)

// codeRenderer renders fenced code as goldmark does, with the fence's
// caption above the code: the language is the info string's first word,
// unless that word is an attribute (k="v"), and the caption its title.
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderFencedCode)
}

func renderFencedCode(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	lang, title := codeInfo(n, source)
	if title != "" {
		_, _ = w.WriteString(`<figure class="code"><figcaption>` + html.EscapeString(title) + "</figcaption>")
	}
	_, _ = w.WriteString("<pre><code")
	if lang != "" {
		_, _ = w.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
	}
	_ = w.WriteByte('>')
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(source))))
	}
	_, _ = w.WriteString("</code></pre>\n")
	if title != "" {
		_, _ = w.WriteString("</figure>\n")
	}
	return ast.WalkSkipChildren, nil
}

// codeInfo is a fenced block's language and caption, from its info string.
func codeInfo(n *ast.FencedCodeBlock, source []byte) (lang, title string) {
	if n.Info == nil {
		return "", ""
	}
	info := string(n.Info.Segment.Value(source))
	if f := strings.Fields(info); len(f) > 0 && !strings.Contains(f[0], "=") {
		lang = f[0]
	}
	if m := codeTitle.FindStringSubmatch(info); m != nil {
		title = strings.TrimSpace(m[1])
	}
	return lang, title
}
