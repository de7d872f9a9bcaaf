package web

import (
	"bytes"
	"html/template"
	"path"
	"strings"

	"github.com/textbook-rag/rag/markdown/page"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// markdown renders chapters: GitHub-flavoured Markdown, `{#id}` heading
// attributes, math kept whole (see math.go), code with its caption (see
// code.go), raw HTML left out (the renderer's safe default).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM, mathExtension{}),
	goldmark.WithParserOptions(parser.WithAttribute()),
	goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))),
)

// render turns the chapter's Markdown into HTML. Headings get the ids a
// Docusaurus site gives them, so /docs/<module>/<chapter>#<anchor> links
// land where they should; links between chapters are pointed at /docs.
func (b *book) render(c *chapter) error {
	src := c.Body
	doc := markdown.Parser().Parse(text.NewReader(src))
	slugs := page.Slugger{}
	// Custom ids are taken first so generated ones never collide with them.
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering {
			if id, ok := h.AttributeString("id"); ok {
				if s, ok := id.([]byte); ok {
					slugs.Custom(string(s))
				}
			}
		}
		return ast.WalkContinue, nil
	})
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 1 {
				c.hasH1 = true
			}
			if _, ok := n.AttributeString("id"); !ok {
				n.SetAttributeString("id", []byte(slugs.Slug(page.PlainText(n, src))))
			}
		case *ast.Link:
			n.Destination = []byte(b.rewriteLink(c, string(n.Destination)))
		}
		return ast.WalkContinue, nil
	})
	var out bytes.Buffer
	if err := markdown.Renderer().Render(&out, src, doc); err != nil {
		return err
	}
	c.HTML = template.HTML(out.String()) // goldmark escapes text and omits raw HTML
	return nil
}

// rewriteLink points a link at a chapter of this book at its /docs page:
// relative links to its pages' files (.md, .mdx, .qmd, .Rmd, .ipynb; and
// to the .html page a site builds from one) and site-absolute Docusaurus paths ("/module-2/chapter-3",
// "/docs/module-2/chapter-3").
func (b *book) rewriteLink(c *chapter, dest string) string {
	if dest == "" || strings.HasPrefix(dest, "#") || strings.Contains(dest, "://") || strings.HasPrefix(dest, "mailto:") {
		return dest
	}
	target, frag, _ := strings.Cut(dest, "#")
	if frag != "" {
		frag = "#" + frag
	}
	if strings.HasPrefix(target, "/") {
		if t := b.find(strings.Trim(strings.TrimPrefix(target, "/docs/"), "/")); t != nil {
			return t.URL + frag
		}
		return dest
	}
	switch ext := path.Ext(target); ext {
	case ".md", ".mdx", ".qmd", ".Rmd", ".rmd", ".ipynb":
		if t, ok := b.byFile[path.Join(path.Dir(c.File), target)]; ok {
			return t.URL + frag
		}
	case ".html":
		// mdBook, Quarto, bookdown and Jupyter Book books link to the page
		// they build from a chapter.
		for _, src := range pageSources {
			if t, ok := b.byFile[path.Join(path.Dir(c.File), strings.TrimSuffix(target, ext)+src)]; ok {
				return t.URL + frag
			}
		}
	}
	return dest
}

// pageSources are the extensions of the files a site builds its .html
// pages from.
var pageSources = []string{".md", ".qmd", ".Rmd", ".rmd", ".ipynb", ".mdx"}

// find is the page a path under /docs names: a page's path, a page's id,
// or a module's folder (its landing page).
func (b *book) find(route string) *chapter {
	if c, ok := b.byRoute[route]; ok {
		return c
	}
	if c, ok := b.aliases[route]; ok {
		return c
	}
	if m, ok := b.modules[route]; ok {
		return m.landing
	}
	return nil
}

// Slug is the Docusaurus heading anchor of a heading's text (before
// de-duplication). It is the chunker's rule, so that the anchors of the
// tutor's sources exist on these pages.
func Slug(heading string) string { return page.Slug(heading) }
