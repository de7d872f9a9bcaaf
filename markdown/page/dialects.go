package page

import (
	"html"
	"regexp"
	"strings"
)

// Course sites write more than CommonMark. Each dialect's markup is read
// as the site shows it, so a quote never shows a student raw markup:
//
//   - MkDocs (Material, pymdownx): `!!! note "Title"` and `??? tip`
//     admonitions and `=== "Python"` content tabs, whose content is the
//     indented lines below; `/// tip | Title` … `///` blocks; snippet
//     lines (`{!> ../src/x.py !}`, `{* x.py *}`, `--8<-- "x.md"`), whose
//     file is outside the book, go, and in a code block are the file's
//     name (src/x.py);
//   - MyST (Jupyter Book): ```` ```{note} ```` and `:::{note}` directives
//     are text (their `:option:` lines go), ```` ```{code-cell} python ````
//     is a code block, ```` ```{math} ```` is display math between `$$`
//     lines; `{role}`text`` is its text, a bare label in
//     parentheses; `(label)=` targets, `:label:` lines, `+++` cell
//     breaks and `%` comment lines (`%%%` too) go;
//   - Quarto and R Markdown (bookdown): ```` ```{r label, echo=FALSE} ````
//     chunks are code blocks, whatever the header's form ({lang},
//     {lang, k=v}, {lang k="v"}, pandoc's {.lang k="v"}); their `#|`
//     options go; a chunk with echo=FALSE, include=FALSE or
//     `#| echo: false` is not shown; a filename="a.py" (or `#| filename:`)
//     is the code's caption, written title="a.py"; `` `r expr` `` is the
//     expression as code; `[@key; @other]` citations and `@fig-x` or
//     `\@ref(fig:x)` cross-references read as "(key; other)", "Figure x"
//     and "x"; `::: {.callout-note title="T"}` fenced divs are their
//     title and text; `{{< shortcode >}}` goes; a heading's `{-}` or
//     `{#id .class}` attributes leave its text (the {#id} stays its
//     anchor); `(ref:label) text` caption lines are their text; a
//     definition list's ": " marker goes.

// BookdownPart is a bookdown part heading, `# (PART) Title {-}`, or the
// appendix's, `# (APPENDIX) Title {-}`: it starts a part of the book (a
// module, see the site's bookdown layout), not a section of the page.
var BookdownPart = regexp.MustCompile(`^#\s+\((PART|APPENDIX)\\?\*?\)\s*(.*?)\s*(\{[^}]*\})?\s*$`)

var (
	// directiveFence opens a MyST directive or a Quarto/R Markdown chunk:
	// ```{name} args or ```{r label, opts}.
	directiveFence = regexp.MustCompile("^(\\s*)(`{3,}|~{3,})\\s*\\{([A-Za-z][\\w:.+-]*)([^}]*)\\}\\s*(.*)$")
	// colonDirective is a MyST colon fence, `:::{note} Title`.
	colonDirective = regexp.MustCompile(`^(\s*:{3,})\s*\{([A-Za-z][\w:.+-]*)\}\s*(.*)$`)
	// fencedDiv is a Pandoc fenced div, `::: {.callout-note title="T"}`
	// or `:::: columns`.
	fencedDiv = regexp.MustCompile(`^(\s*:{3,})\s*\{([^}]*)\}\s*$`)
	divTitle  = regexp.MustCompile(`\btitle\s*=\s*"([^"]*)"`)
	// mkdocsBlock is an admonition (`!!! note "Title"`, `???+ tip`) or a
	// content tab (`=== "Python"`): its content is indented below it.
	mkdocsBlock = regexp.MustCompile(`^(\s*)(?:(?:!!!|\?\?\?\+?)\s+[\w-]+(?:\s+[\w-]+)*(?:\s+"([^"]*)")?|===\+?\s+"([^"]*)")\s*$`)
	// pymdownxBlock opens or closes a `/// type | Title` block.
	pymdownxBlock = regexp.MustCompile(`^\s*/{3,}\s*(?:([\w-]+)\s*(?:\|\s*(.*?))?)?\s*$`)
	// snippetLine includes a file from outside the book.
	snippetLine = regexp.MustCompile(`^\s*(?:\{!>?\s*[^}]*!\}|\{\*\s*[^}]*\*\}|-{2}8<-{2}\s*.*)\s*$`)
	// snippetPath is a snippet line in a code block, and its file.
	snippetPath = regexp.MustCompile(`^(\s*)(?:\{!>?\s*([^}\s]*)\s*!\}|\{\*\s*([^}\s]*)[^}]*\*\}|-{2}8<-{2}\s*"?([^"]*)"?)\s*$`)
	// mystTarget is a `(label)=` line; mystOption a directive's option.
	mystTarget = regexp.MustCompile(`^\s*\([\w:./-]+\)=\s*$`)
	mystOption = regexp.MustCompile(`^\s*:[\w-]+:(?:\s.*|[^\s:].*)?$`)
	// mystLabel is a `:label:` line, which names a target and is never
	// prose, wherever it stands (under a heading as well as in a
	// directive's options).
	mystLabel = regexp.MustCompile(`^\s*:label:`)
	// mystComment is a MyST `%` comment line (`% note`, `%%%` …); a line
	// that opens with an R infix operator (`%>% filter(x)`) is no comment.
	mystComment  = regexp.MustCompile(`^%`)
	rInfixOpener = regexp.MustCompile(`^%[\w.<>$]*%\s`)
	// preOpen and preClose bound an HTML <pre> block, which the site shows
	// as code: its lines are kept as a fenced block, entities decoded.
	preOpen  = regexp.MustCompile(`^\s*<pre(?:\s[^>]*)?>(?:<code(?:\s[^>]*)?>)?(.*)$`)
	preClose = regexp.MustCompile(`^(.*?)(?:</code>)?</pre>\s*$`)
	// mystBreak is a MyST cell break, `+++` with the cell's metadata.
	mystBreak = regexp.MustCompile(`^\+\+\+\s*(?:\{.*\})?\s*$`)
	chunkOpt  = regexp.MustCompile(`^\s*#\|`)
	// cellFence opens a code cell whose header is all in braces: Quarto's
	// and R Markdown's ```{lang, k=v} or ```{lang k="v"}, pandoc's
	// ```{.lang k="v"} (see readCell).
	cellFence = regexp.MustCompile("^(\\s*)(`{3,}|~{3,})\\s*\\{([^{}]*)\\}\\s*$")
	// cellFilename is a cell's `#| filename: "a.py"` option.
	cellFilename = regexp.MustCompile(`^\s*#\|\s*filename\s*:\s*(.*?)\s*$`)
	// hiddenChunk: a chunk whose code the page does not show.
	hiddenChunk = regexp.MustCompile(`(?i)\b(?:echo|include)\s*[=:]\s*(?:false|f)\b`)
	role        = regexp.MustCompile("(^|[^\\w=$\\\\`])\\{([a-z][\\w:+-]*)\\}`([^`]*)`")
	// openRole is a role whose text runs on to the next line.
	openRole     = regexp.MustCompile("(?:^|[^\\w=$\\\\`])\\{[a-z][\\w:+-]*\\}`[^`]*$")
	roleTarget   = regexp.MustCompile(`^(.*?)\s*<([^<>]*)>$`)
	inlineR      = regexp.MustCompile("`(?:r|\\{r\\}|\\{python\\}|\\{julia\\})\\s+([^`]+)`")
	citation     = regexp.MustCompile(`\[((?:[^\[\]]*[\s;-])?@\w[^\[\]]*)\]`)
	citeKey      = regexp.MustCompile(`(^|[\s;-])-?@(\w[\w:.#$%&+?<>~/-]*\w|\w)`)
	crossRef     = regexp.MustCompile(`(^|[^\w@\\])@(fig|tbl|sec|eq|thm|lem|cor|def|exm|exr|lst)-([\w-]*\w)`)
	bookdownRef  = regexp.MustCompile(`\\@ref\((?:(fig|tab|eq|thm|lem|def|exm|exr|sec)[:])?([\w.-]+)\)`)
	shortcode    = regexp.MustCompile(`\{\{[<%]\s*[^{}]*?[%>]\}\}`)
	headingAttrs = regexp.MustCompile(`^( {0,3}#{1,6}[ \t].*?)[ \t]+\{((?:\s*(?:[#.][\w:.-]+|-|[\w-]+=(?:"[^"]*"|\S+)))+)\s*\}[ \t]*$`)
	spanAttrs    = regexp.MustCompile(`(\]|\))\{(?:[.#][^{}]*|[\w-]+=[^{}]*)\}`)
	refCaption   = regexp.MustCompile(`^\(ref:[\w.-]+\)\s*`)
)

// codeDirectives are MyST directives whose body is code.
var (
	// liquidTag is a GitBook or Liquid tag, {% exercise %}, {% endhint %}:
	// it frames text, and is no text itself.
	liquidTag = regexp.MustCompile(`\{%-?\s*[^{}]*?-?%\}`)
	// footnoteRef is a footnote's marker in the text, [^id]; footnoteDef
	// is its definition, `[^id]: text`. A footnote is mostly a citation
	// (the references of dh-handbook): quoted as an answer it answers
	// nothing, so the definition's line goes.
	footnoteRef = regexp.MustCompile(`\[\^[\w.:-]+\]`)
	footnoteDef = regexp.MustCompile(`^\s{0,3}\[\^[^\]\s]+\]:\s*`)
	// autodocBlock is an mkdocstrings `::: package.module` (or a module
	// alone, `::: my_package`) or an mkdocs-click `::: mkdocs-click` block: documentation generated from
	// code the book does not hold. Its indented options go with it. A
	// heading's (`#### ::: mkdocs.plugins.event_priority`, the heading
	// mkdocstrings fills with the object's name and docstring) goes too:
	// the book holds neither, and an empty heading answers nothing.
	autodocBlock = regexp.MustCompile(`^(?:#{1,6}[ \t]+)?:::\s+(?:mkdocs-click|[\w-]+(?:\.[\w-]+)+|[A-Za-z]\w*_\w*)\s*$`)
	// exerciseTag is a GitBook exercise's tag on a line of its own.
	exerciseTag = regexp.MustCompile(`^\s*\{%-?\s*(exercise|initial|solution|validation|context|endexercise)\b([^%]*?)-?%\}\s*$`)
	// exerciseLang is an exercise tag's language, {% exercise lang="js" %}.
	exerciseLang = regexp.MustCompile(`\blang(?:uage)?\s*=\s*["']?([\w+#.-]+)`)
	// rawTextOpen opens an HTML <style> or <script> block: its content
	// is CSS or code the page runs, never shows (CommonMark's HTML block
	// of the first kind, which runs to the line that closes it).
	rawTextOpen = regexp.MustCompile(`(?i)^ {0,3}<(style|script)(?:[\s>]|$)`)
	// tableCaption is a pandoc table caption's id, `: Caption {#tbl-id}`.
	tableCaption = regexp.MustCompile(`\s*\{#(?:tbl|tab)-[^{}\s]*\}\s*$`)
)

// bareDirectives lay their content out (a grid's columns, a bookdown
// block's style): their arguments are no text, their content is.
var bareDirectives = map[string]bool{"grid": true, "grid-item": true, "tab-set": true, "block": true, "block2": true}

var codeDirectives = map[string]bool{"code-cell": true, "code-block": true, "code": true, "sourcecode": true, "ipython": true}

// droppedDirectives show no text of their own.
var droppedDirectives = map[string]bool{"raw": true, "index": true, "tableofcontents": true, "toctree": true,
	"image": true, "include": true, "literalinclude": true, "bibliography": true}

// chunkLanguages are the engines of Quarto and R Markdown code chunks.
var chunkLanguages = map[string]bool{"r": true, "python": true, "julia": true, "bash": true, "sh": true, "sql": true,
	"ojs": true, "js": true, "javascript": true, "c": true, "cpp": true, "rcpp": true, "stan": true, "octave": true,
	"matlab": true, "ruby": true, "perl": true, "go": true, "rust": true, "java": true, "scala": true, "sas": true,
	"stata": true, "powershell": true, "dot": true, "mermaid": true, "tikz": true, "latex": true, "html": true, "css": true,
	"zsh": true, "awk": true, "sed": true, "node": true, "sass": true, "scss": true, "haskell": true, "fortran": true,
	"groovy": true, "mysql": true, "psql": true, "verbatim": true}

// crossRefNames are the words a cross-reference's prefix stands for.
var crossRefNames = map[string]string{"fig": "Figure", "tbl": "Table", "tab": "Table", "sec": "Section", "eq": "Equation",
	"thm": "Theorem", "lem": "Lemma", "cor": "Corollary", "def": "Definition", "exm": "Example", "exr": "Exercise", "lst": "Listing"}

// openFence is a fence open in plainDialects.
type openFence struct {
	fence  string // the closing marker ("```", "````")
	indent string
	kind   int // fenceCode, fenceText, fenceDrop
	// code blocks are held until they close: one that holds only
	// snippet lines goes whole.
	held       []string
	hasContent bool
	options    bool // still in a directive's leading option lines
	// lines counts the lines read in the fence; yamlOptions: in the
	// directive's options written as a YAML block (`---` … `---` on
	// its first lines), which go.
	lines       int
	yamlOptions bool
	// lang is a code cell's language; cell marks a cell that runs (its
	// `#|` lines are options: `#| filename:` is its caption).
	lang string
	cell bool
}

const (
	fenceCode = iota
	fenceText
	fenceDrop
	fenceMath // a MyST {math} directive: its lines are display math
)

// indentBlock is an open MkDocs admonition or tab: its content is
// indented by at least col spaces, of which cut go.
type indentBlock struct{ col, cut int }

// plainDialects rewrites a page's dialect markup (see above) as plain
// Markdown, line by line, in one pass.
func plainDialects(lines []string) []string {
	if !hasDialect(lines) {
		return lines
	}
	out := make([]string, 0, len(lines))
	var fences []*openFence
	var blocks []indentBlock
	// options: the lines after a colon directive's opener may be its
	// options; pending: a line whose role runs on to the next.
	options, pending, held, inPre := false, "", 0, false
	autodoc := false // in an autodocBlock's options
	// afterColon: the line right after a colon directive's opener, which
	// may open its options as a YAML block; colonYAML: in that block.
	afterColon, colonYAML := false, false
	var ex gitbookExercise
	rawClose := "" // the closing tag of an open <style> or <script> block
	for _, line := range lines {
		if rawClose != "" {
			if i := strings.Index(strings.ToLower(line), rawClose); i >= 0 {
				if rest := line[i+len(rawClose):]; strings.TrimSpace(rest) != "" {
					out = append(out, rest)
				}
				rawClose = ""
			}
			continue
		}
		if m := exerciseTag.FindStringSubmatch(line); m != nil && len(fences) == 0 && (ex.open || m[1] == "exercise") {
			out = ex.tag(m[1], m[2], out)
			continue
		}
		if ex.open && ex.part != exerciseText {
			if ex.part != exerciseDrop {
				ex.code = append(ex.code, line)
			}
			continue
		}
		if colonYAML {
			colonYAML = strings.TrimSpace(line) != "---"
			continue
		}
		if afterColon && strings.TrimSpace(line) == "---" {
			afterColon, colonYAML = false, true
			continue
		}
		afterColon = false
		if options && mystOption.MatchString(line) {
			continue
		}
		options = false
		// MkDocs blocks end at the first line indented less than their
		// content; their content loses the indentation.
		if strings.TrimSpace(line) != "" {
			ind := len(line) - len(strings.TrimLeft(line, " "))
			for len(blocks) > 0 && ind < blocks[len(blocks)-1].col {
				blocks = blocks[:len(blocks)-1]
			}
		}
		if n := len(blocks); n > 0 {
			line = cutIndent(line, blocks[n-1].cut)
		}
		if pending != "" {
			if t := strings.TrimSpace(line); t == "" || fenceOpen.MatchString(line) || strings.HasPrefix(t, ":::") {
				out = append(out, strings.Split(plainInline(pending), "\n")...)
				pending, held = "", 0
			}
		}
		if n := len(fences); n > 0 {
			f := fences[n-1]
			if strings.TrimSpace(line) == f.fence {
				fences = fences[:n-1]
				switch f.kind {
				case fenceCode:
					if f.hasContent {
						out = append(out, f.held...)
						out = append(out, f.indent+f.fence)
					}
				case fenceText:
					out = append(out, "")
				case fenceMath:
					out = append(out, f.indent+"$$", "")
				}
				continue
			}
			f.lines++
			if f.yamlOptions || f.lines == 1 && f.options && strings.TrimSpace(line) == "---" {
				// A directive's options as a YAML block: `---` opens
				// it on the first line, the next `---` closes it.
				f.yamlOptions = f.lines == 1 || strings.TrimSpace(line) != "---"
				continue
			}
			switch f.kind {
			case fenceDrop:
				continue
			case fenceCode:
				if f.options && (chunkOpt.MatchString(line) || mystOption.MatchString(line)) {
					if chunkOpt.MatchString(line) && hiddenChunk.MatchString(line) {
						f.kind = fenceDrop // `#| echo: false`: the page shows no code
					}
					if m := cellFilename.FindStringSubmatch(line); m != nil && f.cell {
						f.held[0] = codeHeader(f.indent, f.fence, f.lang, unquoteValue(m[1]))
					}
					continue
				}
				if m := snippetPath.FindStringSubmatch(line); m != nil {
					// The file is outside the book: the block names it.
					line = m[1] + strings.TrimLeft(m[2]+m[3]+m[4], "./")
				}
				f.options = false
				f.hasContent = f.hasContent || strings.TrimSpace(line) != ""
				f.held = append(f.held, line)
				continue
			case fenceText:
				if f.options && mystOption.MatchString(line) {
					continue
				}
				f.options = false
			case fenceMath:
				if f.options && mystOption.MatchString(line) {
					continue
				}
				f.options = false
				out = append(out, line) // TeX, as written
				continue
			}
		}
		if f := readCell(line); f != nil {
			fences = append(fences, f)
			continue
		}
		if m := directiveFence.FindStringSubmatch(line); m != nil {
			fences = append(fences, openDirective(m, &out))
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fences = append(fences, &openFence{fence: m[1], indent: line[:len(line)-len(strings.TrimLeft(line, " \t"))], kind: fenceCode,
				held: []string{line}})
			continue
		}
		if m := mkdocsBlock.FindStringSubmatch(line); m != nil {
			out = append(out, "")
			if t := m[2] + m[3]; t != "" {
				out = append(out, m[1]+t, "")
			}
			col := len(m[1]) + 4
			cut := 4
			if n := len(blocks); n > 0 {
				cut += blocks[n-1].cut
				col = blocks[n-1].cut + len(m[1]) + 4
			}
			blocks = append(blocks, indentBlock{col: col, cut: cut})
			continue
		}
		if m := pymdownxBlock.FindStringSubmatch(line); m != nil {
			out = append(out, "")
			if t := strings.TrimSpace(m[2]); t != "" {
				out = append(out, t, "")
			}
			continue
		}
		if m := colonDirective.FindStringSubmatch(line); m != nil {
			options, afterColon = true, true
			if droppedDirectives[m[2]] || bareDirectives[m[2]] {
				out = append(out, m[1]+"div")
			} else {
				out = append(out, m[1]+"div "+strings.TrimSpace(m[3]))
			}
			continue
		}
		if m := fencedDiv.FindStringSubmatch(line); m != nil {
			title := ""
			if t := divTitle.FindStringSubmatch(m[2]); t != nil {
				title = " " + t[1]
			}
			out = append(out, m[1]+"div"+title)
			continue
		}
		if m := rawTextOpen.FindStringSubmatch(line); m != nil && !inPre {
			closeTag := "</" + strings.ToLower(m[1]) + ">"
			if i := strings.Index(strings.ToLower(line), closeTag); i >= 0 {
				if rest := line[i+len(closeTag):]; strings.TrimSpace(rest) != "" {
					out = append(out, rest)
				}
			} else {
				rawClose = closeTag
			}
			continue
		}
		if m := preOpen.FindStringSubmatch(line); m != nil {
			inPre = true
			out = append(out, "```")
			line = m[1]
		}
		if inPre {
			if m := preClose.FindStringSubmatch(line); m != nil {
				inPre = false
				if m[1] != "" {
					out = append(out, html.UnescapeString(m[1]))
				}
				out = append(out, "```")
				continue
			}
			out = append(out, html.UnescapeString(line))
			continue
		}
		if autodoc {
			if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(line, "  ") {
				continue
			}
			autodoc = false
		}
		if autodocBlock.MatchString(line) {
			autodoc = true
			continue
		}
		if strings.Contains(line, "{%") && !strings.Contains(line, "{{%") {
			if t := strings.TrimSpace(liquidTag.ReplaceAllString(line, "")); t == "" {
				continue // a tag on its own line
			}
			line = outsideCodeSpans(line, func(s string) string { return liquidTag.ReplaceAllString(s, "") })
		}
		if footnoteDef.MatchString(line) {
			continue
		}
		if strings.Contains(line, "[^") {
			line = outsideCodeSpans(footnoteDef.ReplaceAllString(line, ""), func(s string) string { return footnoteRef.ReplaceAllString(s, "") })
		}
		if strings.HasPrefix(line, ": ") {
			line = tableCaption.ReplaceAllString(line, "")
		}
		if snippetLine.MatchString(line) || BookdownPart.MatchString(line) || mystTarget.MatchString(line) || mystBreak.MatchString(line) ||
			mystLabel.MatchString(line) || (mystComment.MatchString(line) && !rInfixOpener.MatchString(line)) {
			continue
		}
		if strings.HasPrefix(line, ": ") {
			line = line[2:] // a Pandoc definition's marker
		}
		if pending != "" {
			line = pending + "\n" + line
			pending = ""
		}
		// A role's text may run over a few lines of a paragraph.
		if held < 3 && strings.Contains(line, "}`") && openRole.MatchString(line) {
			pending, held = line, held+1
			continue
		}
		held = 0
		out = append(out, strings.Split(plainInline(line), "\n")...)
	}
	if pending != "" {
		out = append(out, strings.Split(plainInline(pending), "\n")...)
	}
	if ex.open {
		out = ex.tag("endexercise", "", out)
	}
	// A fence never closed runs to the page's end, as CommonMark reads it.
	for i := len(fences) - 1; i >= 0; i-- {
		if f := fences[i]; f.kind == fenceCode && f.hasContent {
			out = append(out, f.held...)
		} else if f.kind == fenceMath {
			out = append(out, f.indent+"$$")
		}
	}
	return out
}

// openDirective reads the line that opens a MyST directive or a chunk.
func openDirective(m []string, out *[]string) *openFence {
	indent, fence, name, args, rest := m[1], m[2], m[3], strings.TrimSpace(m[4]), strings.TrimSpace(m[5])
	lname := strings.ToLower(name)
	switch {
	case codeDirectives[lname]:
		lang := strings.Fields(rest + " " + args)
		l := ""
		if len(lang) > 0 {
			l = lang[0]
			if strings.HasPrefix(l, "ipython") {
				l = "python" // the kernel: ipython3
			}
		}
		return &openFence{fence: fence, indent: indent, kind: fenceCode, held: []string{indent + fence + l}, options: true}
	case chunkLanguages[lname]:
		if hiddenChunk.MatchString(args) {
			return &openFence{fence: fence, kind: fenceDrop}
		}
		return &openFence{fence: fence, indent: indent, kind: fenceCode, held: []string{indent + fence + lname}, options: true}
	case droppedDirectives[lname]:
		return &openFence{fence: fence, kind: fenceDrop, options: true}
	case lname == "math":
		// Display math: written between $$ lines, as the page's math
		// reader takes it whole (no Markdown rule touches the TeX).
		*out = append(*out, "", indent+"$$")
		if t := strings.TrimSpace(args + " " + rest); t != "" {
			*out = append(*out, indent+t)
		}
		return &openFence{fence: fence, indent: indent, kind: fenceMath, options: true}
	}
	*out = append(*out, "")
	title := strings.TrimSpace(args + " " + rest)
	if title != "" && lname != "figure" && lname != "math" && !bareDirectives[lname] {
		*out = append(*out, indent+plainInline(title), "")
	}
	return &openFence{fence: fence, indent: indent, kind: fenceText, options: true}
}

// readCell reads a fence line that opens a code cell with its header in
// braces, nil for any other line. Pandoc's form, {.lang k="v"}, is code
// the page shows as written. Quarto's and R Markdown's, {lang, k=v} or
// {lang label k="v"}, is a cell that runs: its echo=FALSE hides it, its
// `#|` lines are options. A bare {name} is a cell only for a language
// that runs in cells (else it is a MyST directive). filename="…" is the
// code's caption, carried as the fence's title="…".
func readCell(line string) *openFence {
	m := cellFence.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	indent, fence := m[1], m[2]
	fields := cellFields(m[3])
	if len(fields) == 0 {
		return nil
	}
	lang, cell, attrs := "", false, map[string]string{}
	switch first := fields[0]; {
	case strings.HasPrefix(first, ".") || strings.HasPrefix(first, "#") || strings.Contains(first, "="):
		for _, f := range fields {
			if strings.HasPrefix(f, ".") && lang == "" {
				lang = f[1:]
			}
		}
	default:
		name := strings.ToLower(first)
		if codeDirectives[name] || droppedDirectives[name] || bareDirectives[name] || name == "myst-example" ||
			len(fields) == 1 && !chunkLanguages[name] {
			return nil
		}
		lang, cell = name, true
		if hiddenChunk.MatchString(m[3]) {
			return &openFence{fence: fence, kind: fenceDrop}
		}
	}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok {
			attrs[strings.ToLower(k)] = unquoteValue(v)
		}
	}
	return &openFence{fence: fence, indent: indent, kind: fenceCode, held: []string{codeHeader(indent, fence, lang, attrs["filename"])},
		options: cell, lang: lang, cell: cell}
}

// cellFields cuts a cell header's braces into its words, at spaces and
// commas outside quotes: `r fit, fig.cap="a, b"` is r, fit and
// fig.cap="a, b".
func cellFields(s string) []string {
	var out []string
	var cur strings.Builder
	quote := rune(0)
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == ' ' || r == '\t' || r == ',':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
			continue
		}
		cur.WriteRune(r)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// unquoteValue is an attribute's or option's value without its quotes.
func unquoteValue(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	return v
}

// codeHeader is a code block's opening fence: its language and, when it
// has one, its caption as title="…", the attribute MkDocs and Docusaurus
// write, which the reader's page and the answers show above the code.
func codeHeader(indent, fence, lang, caption string) string {
	h := indent + fence + lang
	if caption = strings.TrimSpace(strings.ReplaceAll(caption, `"`, "'")); caption != "" {
		h += ` title="` + caption + `"`
	}
	return h
}

// gitbookExercise is an open GitBook exercise block ({% exercise %} …
// {% endexercise %}): its task is text, its starter code ({% initial %})
// and solution ({% solution %}) are code blocks captioned so, and its
// checks ({% validation %}) and hidden code ({% context %}) go.
type gitbookExercise struct {
	open bool
	part int
	lang string
	code []string
}

const (
	exerciseText = iota
	exerciseStarter
	exerciseSolution
	exerciseDrop
)

// tag reads an exercise's tag: the part before it ends (written to out
// as a code block when it is code) and the next begins.
func (e *gitbookExercise) tag(name, args string, out []string) []string {
	switch e.part {
	case exerciseStarter:
		out = appendExerciseCode(out, e.lang, "Starter code", e.code)
	case exerciseSolution:
		out = appendExerciseCode(out, e.lang, "Solution", e.code)
	}
	e.code = nil
	switch name {
	case "exercise":
		*e = gitbookExercise{open: true, part: exerciseText}
		if m := exerciseLang.FindStringSubmatch(args); m != nil {
			e.lang = m[1]
		}
	case "initial":
		e.part = exerciseStarter
	case "solution":
		e.part = exerciseSolution
	case "validation", "context":
		e.part = exerciseDrop
	case "endexercise":
		*e = gitbookExercise{}
	}
	return append(out, "")
}

// appendExerciseCode writes an exercise's code as a fenced block with its
// caption, fenced longer than any fence inside; blank code writes nothing.
func appendExerciseCode(out []string, lang, caption string, code []string) []string {
	for len(code) > 0 && strings.TrimSpace(code[0]) == "" {
		code = code[1:]
	}
	for len(code) > 0 && strings.TrimSpace(code[len(code)-1]) == "" {
		code = code[:len(code)-1]
	}
	if len(code) == 0 {
		return out
	}
	n := 3
	for _, l := range code {
		t := strings.TrimLeft(l, " ")
		if run := len(t) - len(strings.TrimLeft(t, "`")); run >= n {
			n = run + 1
		}
	}
	fence := strings.Repeat("`", n)
	out = append(out, codeHeader("", fence, lang, caption))
	out = append(out, code...)
	return append(out, fence)
}

// cutIndent drops up to n leading spaces.
func cutIndent(line string, n int) string {
	i := 0
	for i < n && i < len(line) && line[i] == ' ' {
		i++
	}
	return line[i:]
}

// plainInline rewrites a line's roles, inline expressions, citations,
// cross-references, shortcodes and attributes.
func plainInline(line string) string {
	if !strings.ContainsAny(line, "{@`(") {
		return line
	}
	// Each expression runs only on a line that holds what it must match:
	// most lines hold none, and a page may have millions.
	if strings.HasPrefix(line, "(ref:") {
		line = refCaption.ReplaceAllString(line, "")
	}
	if strings.Contains(line, "}`") {
		line = role.ReplaceAllStringFunc(line, func(s string) string {
			m := role.FindStringSubmatch(s)
			return m[1] + plainRole(m[2], m[3])
		})
	}
	if strings.Contains(line, "`") {
		line = inlineR.ReplaceAllString(line, "`$1`")
	}
	// The rest is read outside code spans only.
	parts := strings.Split(line, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = plainProse(parts[i])
	}
	line = strings.Join(parts, "`")
	if !strings.Contains(line, "{") {
		return line
	}
	if m := headingAttrs.FindStringSubmatch(line); m != nil {
		id := ""
		for _, f := range strings.Fields(m[2]) {
			if strings.HasPrefix(f, "#") && len(f) > 1 {
				id = " {" + f + "}"
			}
		}
		line = m[1] + id
	}
	return line
}

// plainRole is a MyST role as the page shows it: its text, a bare
// label in parentheses.
func plainRole(name, text string) string {
	if t := roleTarget.FindStringSubmatch(text); t != nil && t[1] != "" {
		return t[1]
	}
	if t := roleTarget.FindStringSubmatch(text); t != nil {
		text = t[2]
	}
	switch name {
	case "math":
		return "$" + text + "$"
	case "eq", "cite", "cite:p", "cite:t", "numref", "ref", "doc", "footcite":
		return "(" + text + ")"
	case "code", "literal", "kbd", "file", "samp", "command":
		return "`" + text + "`"
	}
	return text
}

// plainProse rewrites the shortcodes, cross-references, citations and
// attributes of text outside code spans.
func plainProse(line string) string {
	if strings.Contains(line, "{{") {
		line = shortcode.ReplaceAllString(line, "")
	}
	if strings.Contains(line, `\@ref(`) {
		line = bookdownRef.ReplaceAllStringFunc(line, func(s string) string {
			m := bookdownRef.FindStringSubmatch(s)
			// The text names the kind itself: "Figure \@ref(fig:x)".
			return m[2]
		})
	}
	if strings.Contains(line, "@") {
		line = crossRef.ReplaceAllStringFunc(line, func(s string) string {
			m := crossRef.FindStringSubmatch(s)
			return m[1] + crossRefNames[m[2]] + " " + strings.ReplaceAll(m[3], "-", " ")
		})
		line = plainCitations(line)
	}
	if !strings.Contains(line, "{") {
		return line
	}
	return spanAttrs.ReplaceAllString(line, "$1")
}

// plainCitations reads a citation, `[@key]` or `[see @a, p. 3; @b]`, as
// "(key)" or "(see a, p. 3; b)". A link's text (`[@name](url)`) is not
// one.
func plainCitations(line string) string {
	if !strings.Contains(line, "@") {
		return line
	}
	var b strings.Builder
	last := 0
	for _, m := range citation.FindAllStringIndex(line, -1) {
		if m[1] < len(line) && (line[m[1]] == '(' || line[m[1]] == '[') {
			continue
		}
		b.WriteString(line[last:m[0]])
		b.WriteString("(" + citeKey.ReplaceAllString(line[m[0]+1:m[1]-1], "$1$2") + ")")
		last = m[1]
	}
	b.WriteString(line[last:])
	return b.String()
}

// hasDialect reports a page with a line any dialect rewrites, so that
// plain pages are left as they are, untouched.
func hasDialect(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if t == "" {
			continue
		}
		switch t[0] {
		case '!', '?', '=', '/', '{', ':', '(', '+', '%', '-':
			return true
		}
		if strings.ContainsAny(l, "{@") || strings.HasPrefix(t, "# (") || strings.Contains(l, "[^") || strings.Contains(l, "`r ") || strings.HasPrefix(t, "<pre") ||
			rawTextOpen.MatchString(l) || strings.Contains(t, "# :::") {
			return true
		}
	}
	return false
}

// outsideCodeSpans rewrites the parts of a line outside its `code spans`.
func outsideCodeSpans(line string, rewrite func(string) string) string {
	parts := strings.Split(line, "`")
	for i := 0; i < len(parts); i += 2 {
		parts[i] = rewrite(parts[i])
	}
	return strings.Join(parts, "`")
}
