package page

import (
	"html"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// FrontMatter is the simple `key: value` YAML a page starts with.
type FrontMatter map[string]string

// SplitFrontMatter separates a leading ---…--- block from the body.
func SplitFrontMatter(src []byte) (FrontMatter, []byte) {
	fm := FrontMatter{}
	s := string(src)
	s = strings.TrimPrefix(s, "\ufeff")
	if !strings.HasPrefix(s, "---\n") && !strings.HasPrefix(s, "---\r\n") {
		return fm, []byte(s)
	}
	rest := s[strings.Index(s, "\n")+1:]
	end := -1
	for off := 0; off < len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, "\r ") == "---" {
			end = off
			break
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return fm, []byte(s)
	}
	anchors := map[string]string{}
	for _, line := range strings.Split(rest[:end], "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		v = strings.TrimSpace(v)
		// A YAML anchor (&name value) names the value; an alias (*name)
		// stands for the value named, and for nothing when that is not a
		// plain value of the front matter's top level.
		anchor := ""
		if m := yamlAnchor.FindStringSubmatch(v); m != nil {
			anchor, v = m[1], m[2]
		} else if m := yamlAlias.FindStringSubmatch(v); m != nil {
			v = anchors[m[1]]
		}
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		if anchor != "" {
			anchors[anchor] = v
		}
		fm[strings.TrimSpace(k)] = v
	}
	body := rest[end:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		body = body[nl+1:]
	} else {
		body = ""
	}
	return fm, []byte(body)
}

var (
	yamlAnchor = regexp.MustCompile(`^&([^\s\[\]{},]+)(?:\s+(.*))?$`)
	yamlAlias  = regexp.MustCompile(`^\*([^\s\[\]{},]+)$`)
	// jsxTag matches an HTML or JSX tag; only the tags are removed, the
	// text they wrap stays.
	jsxTag      = regexp.MustCompile(`</?[A-Za-z][\w.:-]*(\s+[^<>]*?)?/?>`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	customID    = regexp.MustCompile(`\s*\{#([^}\s]+)\}\s*$`)
	// thematicBreak is a "---", "***" or "___" line (also spaced out).
	thematicBreak = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	lineBreakTag  = regexp.MustCompile(`(?i)<br\s*/?>`)
	blankRuns     = regexp.MustCompile(`\n[ \t]*\n(?:[ \t]*\n)+`)
)

type blockKind int

const (
	kindText blockKind = iota
	kindCode
	kindHeading
)

// block is one top-level Markdown block with its source text.
type block struct {
	kind   blockKind
	level  int    // headings
	title  string // headings: plain text without {#id}
	custom string // headings: the {#id}, if any
	text   string
	tokens int
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// structure parses the blocks of a page and not their text: the block
// parsers and paragraph transformers (link reference definitions, GFM
// tables) that md has, and no inline parser. A page's blocks are cut by
// their source offsets, so only a heading's text needs its inlines (see
// headingText). goldmark's inline parsing of a paragraph costs the square
// of its lines when they hold brackets that are no links (each "]" looks
// for a reference from the paragraph's last line back), and builds a node
// for every link and run of text: left out here, a page of any shape is
// parsed in time and memory linear in its bytes.
var structure = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	parser.WithParagraphTransformers(util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
)

// ParseStructure parses Markdown's blocks as Parse does, without the text
// inside them: no inline nodes, linear in the source whatever its shape.
// A parser.WithContext option collects the link reference definitions.
func ParseStructure(src []byte, opts ...parser.ParseOption) ast.Node {
	return structure.Parse(text.NewReader(src), opts...)
}

// headingText is the plain text of a heading parsed by structure: its
// source, parsed again with its inlines and the page's link reference
// definitions, as md parses it in place.
func headingText(raw string, refs []parser.Reference) string {
	src := []byte(raw)
	doc := Parse(src, refs...)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			return PlainText(h, src)
		}
	}
	return ""
}

// Parse parses Markdown as pages are parsed (CommonMark with GitHub's
// extensions), with link reference definitions given from elsewhere (the
// rest of the file a paragraph was taken from): the site reads its
// Markdown tables of contents with it.
func Parse(src []byte, refs ...parser.Reference) ast.Node {
	pc := parser.NewContext()
	for _, r := range refs {
		pc.AddReference(r)
	}
	return md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
}

// BlockStart is the offset of the line a block starts on, false for a
// block with no text.
func BlockStart(n ast.Node, src []byte) (int, bool) { return startOf(n, src) }

// parseBlocks parses a page body into top-level blocks, each carrying its
// exact source text (list markers, fences and table pipes included).
func parseBlocks(src []byte) []block {
	pc := parser.NewContext()
	doc := structure.Parse(text.NewReader(src), parser.WithContext(pc))
	type span struct {
		n     ast.Node
		start int
	}
	var spans []span
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		start, ok := startOf(n, src)
		if !ok {
			continue
		}
		spans = append(spans, span{n, start})
	}
	var blocks []block
	for i, sp := range spans {
		end := len(src)
		if i+1 < len(spans) {
			end = spans[i+1].start
		}
		raw := strings.TrimRight(string(src[sp.start:end]), " \t\r\n")
		switch n := sp.n.(type) {
		case *ast.Heading:
			title := headingText(raw, pc.References())
			custom := ""
			if m := customID.FindStringSubmatch(title); m != nil {
				custom = m[1]
				title = strings.TrimSpace(customID.ReplaceAllString(title, ""))
			}
			blocks = append(blocks, block{kind: kindHeading, level: n.Level, title: title, custom: custom})
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			blocks = append(blocks, block{kind: kindCode, text: trimBreaks(raw)})
		case *ast.ThematicBreak:
			continue
		default:
			if t := cleanProse(raw); t != "" {
				blocks = append(blocks, block{kind: kindText, text: t})
			}
		}
	}
	return blocks
}

// cleanProse makes a text block (paragraph, list, table, quote, HTML)
// read as the page shows it: HTML comments, HTML and JSX tags and
// thematic breaks ("---") go, entities (&lt;) become their characters;
// the text inside tags stays. Code spans and fenced code inside the
// block (a list item's example) are left exactly as they are.
func cleanProse(raw string) string {
	hasFence := strings.Contains(raw, "```") || strings.Contains(raw, "~~~")
	if !hasFence {
		raw = htmlComment.ReplaceAllString(raw, "")
	}
	lines := strings.Split(raw, "\n")
	out := lines[:0]
	fence := ""
	for _, line := range lines {
		if fence != "" {
			out = append(out, line)
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			out = append(out, line)
			continue
		}
		if thematicBreak.MatchString(line) {
			continue
		}
		out = append(out, cleanLine(line))
	}
	t := strings.Join(out, "\n")
	if !hasFence {
		t = blankRuns.ReplaceAllString(t, "\n\n")
	}
	return strings.TrimSpace(t)
}

// trimBreaks drops the thematic breaks that follow a code block (a
// break is no block of its own here, so it ends the block before it).
func trimBreaks(raw string) string {
	for {
		i := strings.LastIndexByte(raw, '\n')
		if i < 0 || !thematicBreak.MatchString(raw[i+1:]) {
			return raw
		}
		raw = strings.TrimRight(raw[:i], " \t\n")
	}
}

// cleanLine drops tags and decodes entities outside a line's code spans.
func cleanLine(line string) string {
	if !strings.ContainsAny(line, "<&") {
		return line
	}
	parts := strings.Split(line, "`")
	for i := 0; i < len(parts); i += 2 {
		p := lineBreakTag.ReplaceAllString(parts[i], " ")
		p = jsxTag.ReplaceAllString(p, "")
		parts[i] = html.UnescapeString(p)
	}
	return strings.Join(parts, "`")
}

// startOf finds where a top-level block begins in the source: the start
// of the line of its first segment (so list markers, quote marks and
// heading hashes are included), or the line before for fenced code.
func startOf(n ast.Node, src []byte) (int, bool) {
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		if f.Info != nil {
			return lineStart(src, f.Info.Segment.Start), true
		}
		if f.Lines().Len() > 0 {
			return lineStart(src, prevLine(src, f.Lines().At(0).Start)), true
		}
	}
	first := -1
	var visit func(ast.Node)
	visit = func(m ast.Node) {
		if first >= 0 {
			return
		}
		if m.Type() == ast.TypeBlock && m.Lines().Len() > 0 {
			first = m.Lines().At(0).Start
			return
		}
		if t, ok := m.(*ast.Text); ok {
			first = t.Segment.Start
			return
		}
		for c := m.FirstChild(); c != nil; c = c.NextSibling() {
			visit(c)
		}
	}
	visit(n)
	if first < 0 {
		return 0, false
	}
	return lineStart(src, first), true
}

func lineStart(src []byte, off int) int {
	for off > 0 && src[off-1] != '\n' {
		off--
	}
	return off
}

func prevLine(src []byte, off int) int {
	off = lineStart(src, off)
	if off > 0 {
		off--
	}
	return off
}

// PlainText is a heading's text without inline markup.
func PlainText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(m ast.Node) {
		for c := m.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Segment.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}
