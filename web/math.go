package web

import (
	"bytes"
	"html"
	"regexp"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Math is TeX, not Markdown: read as Markdown it loses characters
// (`\text{die}_{i}` its underscore, `\,` its backslash) and gains
// emphasis or strikethrough (`~ … ~`). The math extension takes math
// spans whole before any Markdown rule sees them and writes them as
// pandoc's HTML writer does for MathJax or KaTeX: inline math
// ($…$, \(…\)) as <span class="math inline">\(…\)</span>, display math
// ($$…$$, \[…\]) as <span class="math display">\[…\]</span> in a
// paragraph and a <div class="math display"> on lines of its own, and a
// bare \begin{align} … \end{align} environment as written. A `$` opens
// math only as pandoc's rule has it: a non-space after the opening `$`,
// a non-space before the closing one and no digit after it, so that
// "$5 and $10" is prices; `\$` is a dollar.
type mathExtension struct{}

func (mathExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithBlockParsers(util.Prioritized(mathBlockParser{}, 150)),
		parser.WithInlineParsers(util.Prioritized(mathInlineParser{}, 50)),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(mathRenderer{}, 100)))
}

var (
	kindMathInline = ast.NewNodeKind("MathInline")
	kindMathBlock  = ast.NewNodeKind("MathBlock")
)

// mathInline is a math span in a paragraph: its TeX as written, without
// the delimiters.
type mathInline struct {
	ast.BaseInline
	tex     []byte
	display bool
}

func (n *mathInline) Kind() ast.NodeKind { return kindMathInline }

func (n *mathInline) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"TeX": string(n.tex)}, nil)
}

// mathBlock is display math on lines of its own; its lines hold the TeX.
type mathBlock struct {
	ast.BaseBlock
	close []byte // the closing delimiter
	env   bool   // a bare environment, shown with its \begin and \end
	done  bool   // closed on the line that opened it
}

func (n *mathBlock) Kind() ast.NodeKind { return kindMathBlock }
func (n *mathBlock) IsRaw() bool        { return true }

func (n *mathBlock) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// mathDelims are the delimiters that open math, longest first, and what
// closes each.
var mathDelims = []struct {
	open, close string
	display     bool
}{{"$$", "$$", true}, {`\[`, `\]`, true}, {`\(`, `\)`, false}, {"$", "$", false}}

// mathEnv opens a bare display environment, as MathJax and MyST's amsmath
// read them.
var mathEnv = regexp.MustCompile(`^\\begin\{((?:equation|align|alignat|gather|multline|flalign|eqnarray)\*?)\}`)

// eqLabel is what may follow display math's closing `$$` on its line: a
// Quarto equation's {#eq-id}.
var eqLabel = regexp.MustCompile(`^\s*(?:\{#[^{}]*\})?\s*$`)

// closerAt reports whether the closing delimiter starts at line[i]: not
// escaped by a backslash, and for `$` as pandoc has it (a non-space
// before, no digit after).
func closerAt(line []byte, i int, close string) bool {
	if !bytes.HasPrefix(line[i:], []byte(close)) {
		return false
	}
	b := 0
	for j := i - 1; j >= 0 && line[j] == '\\'; j-- {
		b++
	}
	if close == `\)` || close == `\]` {
		return b%2 == 0
	}
	if b%2 == 1 {
		return false
	}
	if close == "$" {
		if i == 0 || line[i-1] == ' ' || line[i-1] == '\t' || line[i-1] == '\n' || line[i-1] == '$' {
			return false
		}
		if i+1 < len(line) && (line[i+1] >= '0' && line[i+1] <= '9' || line[i+1] == '$') {
			return false
		}
	}
	return true
}

// findCloser is the index of the first closing delimiter in line at or
// after from, -1 for none.
func findCloser(line []byte, from int, close string) int {
	for i := from; i < len(line); i++ {
		if line[i] == close[0] && closerAt(line, i, close) {
			return i
		}
	}
	return -1
}

// mathInlineParser reads a math span in a paragraph.
type mathInlineParser struct{}

func (mathInlineParser) Trigger() []byte { return []byte{'$', '\\'} }

// mathMissKey keeps, per delimiter, the stretch of the source after an
// opener where no closer was found: an opener inside it has none either,
// so a paragraph of prices is read once, not once per `$`.
var mathMissKey = parser.NewContextKey()

// mathBlockMissKey is mathMissKey for display blocks, per closer.
var mathBlockMissKey = parser.NewContextKey()

type mathMiss map[string][2]int

func (mathInlineParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	for _, d := range mathDelims {
		if !bytes.HasPrefix(line, []byte(d.open)) {
			continue
		}
		if d.open == "$" && (len(line) < 2 || line[1] == ' ' || line[1] == '\t' || line[1] == '\n') {
			return nil
		}
		misses, _ := pc.Get(mathMissKey).(mathMiss)
		if m, ok := misses[d.open]; ok && seg.Start >= m[0] && seg.Start < m[1] {
			return nil
		}
		n, end := scanInline(block, d.open, d.close, d.display)
		if n != nil {
			return n
		}
		if misses == nil {
			misses = mathMiss{}
			pc.Set(mathMissKey, misses)
		}
		misses[d.open] = [2]int{seg.Start, end}
		return nil
	}
	return nil
}

// scanInline reads the TeX after an opener up to its closer, over the
// paragraph's lines; nil when the paragraph has no closer, with the
// offset its last line ends at.
func scanInline(block text.Reader, open, close string, display bool) (ast.Node, int) {
	block.Advance(len(open))
	var tex []byte
	end := 0
	for first := true; ; first = false {
		line, seg := block.PeekLine()
		if line == nil {
			return nil, end
		}
		end = seg.Stop
		from := 0
		if first && open == "$" {
			from = 1 // the TeX is not empty
		}
		if i := findCloser(line, from, close); i >= 0 {
			tex = append(tex, line[:i]...)
			block.Advance(i + len(close))
			return &mathInline{tex: tex, display: display}, end
		}
		tex = append(tex, line...)
		block.AdvanceLine()
	}
}

// mathBlockParser reads display math on lines of its own: `$$` or `\[`
// to the line its closer ends, or a bare environment to its \end. A
// block whose closer no line before the next blank one holds is no math.
type mathBlockParser struct{}

func (mathBlockParser) Trigger() []byte { return []byte{'$', '\\'} }

func (mathBlockParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 {
		return nil, parser.NoChildren
	}
	rest := line[pos:]
	node := &mathBlock{}
	start := seg.Start + pos
	switch {
	case bytes.HasPrefix(rest, []byte("$$")):
		node.close, start = []byte("$$"), start+2
	case bytes.HasPrefix(rest, []byte(`\[`)):
		node.close, start = []byte(`\]`), start+2
	default:
		m := mathEnv.FindSubmatch(rest)
		if m == nil {
			return nil, parser.NoChildren
		}
		node.close, node.env = []byte(`\end{`+string(m[1])+`}`), true
	}
	body := reader.Source()[start:seg.Stop]
	if i := blockCloser(node, body); i >= 0 {
		if !eqLabel.Match(body[i+len(node.close):]) {
			return nil, parser.NoChildren // text follows: math in a paragraph
		}
		node.Lines().Append(text.NewSegment(start, start+node.stop(i)))
		node.done = true
		reader.AdvanceToEOL()
		return node, parser.NoChildren
	}
	// A look ahead that found no closer is not repeated for the openers
	// it passed: they have none either.
	misses, _ := pc.Get(mathBlockMissKey).(mathMiss)
	if m, ok := misses[string(node.close)]; ok && start >= m[0] && start < m[1] {
		return nil, parser.NoChildren
	}
	closed, end := closedAhead(node, reader.Source(), seg.Stop)
	if !closed {
		if end >= 0 {
			if misses == nil {
				misses = mathMiss{}
				pc.Set(mathBlockMissKey, misses)
			}
			misses[string(node.close)] = [2]int{start, end}
		}
		return nil, parser.NoChildren
	}
	node.Lines().Append(text.NewSegment(start, seg.Stop))
	reader.AdvanceToEOL()
	return node, parser.NoChildren
}

// stop is where the TeX of a line whose closer starts at i ends: before
// the closer, or after it for an environment, shown whole.
func (n *mathBlock) stop(i int) int {
	if n.env {
		return i + len(n.close)
	}
	return i
}

// blockCloser is the index of the block's closer in a line, -1 for none.
func blockCloser(n *mathBlock, line []byte) int {
	if n.env {
		return bytes.Index(line, n.close)
	}
	return findCloser(line, 0, string(n.close))
}

// closedAhead reports whether a line after off, before the next blank
// line (a blockquote's `>` alone is blank), ends the block: its closer
// with nothing but an equation label after it. When no line holds the
// closer, end is where the look stopped, else -1.
func closedAhead(n *mathBlock, src []byte, off int) (closed bool, end int) {
	for off < len(src) {
		nl := bytes.IndexByte(src[off:], '\n')
		line := src[off:]
		if nl >= 0 {
			line = src[off : off+nl+1]
		}
		if len(bytes.Trim(line, " \t\r\n>")) == 0 {
			return false, off
		}
		if i := blockCloser(n, line); i >= 0 {
			return eqLabel.Match(line[i+len(n.close):]), -1
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return false, len(src)
}

func (mathBlockParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	n := node.(*mathBlock)
	if n.done {
		return parser.Close
	}
	line, seg := reader.PeekLine()
	if util.IsBlank(line) {
		return parser.Close
	}
	if i := blockCloser(n, line); i >= 0 {
		n.Lines().Append(text.NewSegment(seg.Start, seg.Start+n.stop(i)))
		reader.AdvanceToEOL()
		return parser.Close
	}
	n.Lines().Append(seg)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (mathBlockParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

func (mathBlockParser) CanInterruptParagraph() bool { return true }

func (mathBlockParser) CanAcceptIndentedLine() bool { return false }

// mathRenderer writes math spans and blocks, their TeX escaped for HTML
// and otherwise as written.
type mathRenderer struct{}

func (mathRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindMathInline, renderMathInline)
	reg.Register(kindMathBlock, renderMathBlock)
}

func renderMathInline(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*mathInline)
	class, open, close := "math inline", `\(`, `\)`
	if n.display {
		class, open, close = "math display", `\[`, `\]`
	}
	_, _ = w.WriteString(`<span class="` + class + `">` + open + html.EscapeString(string(n.tex)) + close + "</span>")
	return ast.WalkSkipChildren, nil
}

func renderMathBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*mathBlock)
	var tex []byte
	lines := n.Lines()
	for i := range lines.Len() {
		s := lines.At(i)
		tex = append(tex, s.Value(source)...)
	}
	tex = bytes.TrimSpace(tex)
	_, _ = w.WriteString(`<div class="math display">`)
	if !n.env {
		_, _ = w.WriteString(`\[`)
	}
	_, _ = w.WriteString(html.EscapeString(string(tex)))
	if !n.env {
		_, _ = w.WriteString(`\]`)
	}
	_, _ = w.WriteString("</div>\n")
	return ast.WalkSkipChildren, nil
}
