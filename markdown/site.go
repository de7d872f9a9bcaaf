package markdown

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
	"github.com/textbook-rag/rag/markdown/page"
)

// A course is named after its book: the title of the Docusaurus site the
// book's docs folder belongs to, else the title of the book's root page,
// else the book folder's name. These functions find each.

// SiteConfigs are the names of a Docusaurus site's config file, in the
// order they are looked for in the folder above the docs.
var SiteConfigs = []string{"docusaurus.config.ts", "docusaurus.config.js", "docusaurus.config.mjs", "docusaurus.config.mts", "docusaurus.config.cjs"}

// maxConfigBytes bounds the config file read: a site config is a few KiB.
const maxConfigBytes = 1 << 20

// ReadSiteTitle returns the title of the Docusaurus config in the folder
// dir, "" when there is none or it names no title. The file is read as a
// book's files are (inside dir, no link followed, no FIFO waited on) and
// never run.
func ReadSiteTitle(dir string) string {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	for _, name := range SiteConfigs {
		if src, _, err := readInRoot(root, name, maxConfigBytes); err == nil {
			return ConfigTitle(src)
		}
	}
	return ""
}

// SiteTitle is ReadSiteTitle for a site held in an fs.FS (the sample's).
func SiteTitle(site fs.FS) string {
	for _, name := range SiteConfigs {
		if src, err := fs.ReadFile(site, name); err == nil {
			return ConfigTitle(src)
		}
	}
	return ""
}

// siteKeys are keys of a Docusaurus config object: the object that has
// most of them besides a title is the config, not a navbar or a footer.
var siteKeys = map[string]bool{"tagline": true, "url": true, "baseUrl": true, "presets": true, "themeConfig": true,
	"favicon": true, "organizationName": true, "projectName": true, "onBrokenLinks": true, "i18n": true, "plugins": true}

// ConfigTitle returns the site title a Docusaurus config's source gives
// (JavaScript or TypeScript), without running it: the title key of the
// object literal that looks most like the config, when its value is a
// string, a template without substitutions, or a constant defined so in
// the file. It is "" when there is no such title.
func ConfigTitle(src []byte) string {
	if checkNesting(src, jsSyntax) != nil {
		return ""
	}
	objs := scanObjects(string(src))
	best := -1
	for i, o := range objs {
		if !o.hasTitle {
			continue
		}
		if best < 0 || o.score > objs[best].score || o.score == objs[best].score && (o.depth < objs[best].depth || o.depth == objs[best].depth && o.start < objs[best].start) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	v := objs[best].title
	if v.ident != "" {
		return constString(string(src), v.ident)
	}
	return strings.TrimSpace(v.text)
}

type titleValue struct {
	text  string // a string literal's value
	ident string // or the name of a constant
}

// object is an object literal (any brace block) of the config's source.
type object struct {
	start, depth int
	score        int // how many siteKeys it has
	hasTitle     bool
	title        titleValue
}

// scanObjects walks the source's brace blocks, skipping strings, templates
// and comments, and notes each block's keys of interest.
func scanObjects(s string) []object {
	var done []object
	var stack []*object
	lastKey := func(key string, i int) {
		if len(stack) == 0 {
			return
		}
		o := stack[len(stack)-1]
		j := skipSpace(s, i)
		if j >= len(s) || s[j] != ':' {
			return
		}
		if siteKeys[key] {
			o.score++
		}
		if key == "title" && !o.hasTitle {
			if v, ok := valueAt(s, skipSpace(s, j+1)); ok {
				o.hasTitle, o.title = true, v
			}
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			i = skipComment(s, i)
		case c == '\'' || c == '"' || c == '`':
			text, end, ok := stringAt(s, i)
			if ok && c != '`' {
				lastKey(text, end)
			}
			i = end
		case c == '{':
			stack = append(stack, &object{start: i, depth: len(stack) + 1})
			i++
		case c == '}':
			if n := len(stack); n > 0 {
				done = append(done, *stack[n-1])
				stack = stack[:n-1]
			}
			i++
		case isIdentStart(rune(c)):
			j := i
			for j < len(s) && isIdentPart(rune(s[j])) {
				j++
			}
			// An identifier right after a dot is a property, not a key.
			if k := prevNonSpace(s, i); k < 0 || s[k] != '.' {
				lastKey(s[i:j], j)
			}
			i = j
		default:
			i++
		}
	}
	return done
}

// valueAt reads a title's value at i: a string, a substitution-free
// template, or an identifier.
func valueAt(s string, i int) (titleValue, bool) {
	if i >= len(s) {
		return titleValue{}, false
	}
	switch c := s[i]; {
	case c == '\'' || c == '"' || c == '`':
		text, end, ok := stringAt(s, i)
		if !ok || c == '`' && strings.Contains(s[i:end], "${") {
			return titleValue{}, false
		}
		// "A" + "B", a call or a ternary is an expression: not read.
		if j := skipSpace(s, end); j < len(s) && !strings.ContainsRune(",}\n;", rune(s[j])) && !strings.HasPrefix(s[j:], "as ") {
			return titleValue{}, false
		}
		return titleValue{text: text}, true
	case isIdentStart(rune(c)):
		j := i
		for j < len(s) && isIdentPart(rune(s[j])) {
			j++
		}
		if k := skipSpace(s, j); k < len(s) && !strings.ContainsRune(",}\n;", rune(s[k])) {
			return titleValue{}, false
		}
		return titleValue{ident: s[i:j]}, true
	}
	return titleValue{}, false
}

// constString finds `const|let|var name = "string"` in the source.
func constString(s, name string) string {
	re := regexp.MustCompile(`\b(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `\s*(?::\s*string\s*)?=\s*`)
	loc := re.FindStringIndex(s)
	if loc == nil {
		return ""
	}
	v, ok := valueAt(s, loc[1])
	if !ok || v.ident != "" {
		return ""
	}
	return strings.TrimSpace(v.text)
}

// stringAt reads the string literal or template opening at i: its value,
// the index after it, and whether it was closed.
func stringAt(s string, i int) (string, int, bool) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); {
		c := s[j]
		switch {
		case c == q:
			return b.String(), j + 1, true
		case c == '\n' && q != '`':
			return b.String(), j, false
		case c == '\\' && j+1 < len(s):
			r, n := unescape(s[j+1:])
			b.WriteString(r)
			j += 1 + n
		default:
			b.WriteByte(c)
			j++
		}
	}
	return b.String(), len(s), false
}

// unescape reads the escape after a backslash: what it stands for and how
// many bytes it took.
func unescape(s string) (string, int) {
	switch s[0] {
	case 'n':
		return "\n", 1
	case 't':
		return "\t", 1
	case 'r', '\n':
		return "", 1
	case 'x':
		if len(s) >= 3 {
			if v, err := strconv.ParseUint(s[1:3], 16, 8); err == nil {
				return string(rune(v)), 3
			}
		}
	case 'u':
		if strings.HasPrefix(s, "u{") {
			if end := strings.IndexByte(s, '}'); end > 2 {
				if v, err := strconv.ParseUint(s[2:end], 16, 32); err == nil && utf8.ValidRune(rune(v)) {
					return string(rune(v)), end + 1
				}
			}
		} else if len(s) >= 5 {
			if v, err := strconv.ParseUint(s[1:5], 16, 16); err == nil {
				return string(rune(v)), 5
			}
		}
	}
	_, n := utf8.DecodeRuneInString(s)
	return s[:n], n
}

func skipComment(s string, i int) int {
	if s[i+1] == '/' {
		if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(s)
	}
	if j := strings.Index(s[i+2:], "*/"); j >= 0 {
		return i + 2 + j + 2
	}
	return len(s)
}

// skipSpace skips white space and comments from i.
func skipSpace(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case s[i] == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			i = skipComment(s, i)
		default:
			return i
		}
	}
	return i
}

func prevNonSpace(s string, i int) int {
	for i--; i >= 0 && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'); i-- {
	}
	return i
}

func isIdentStart(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) }
func isIdentPart(r rune) bool  { return isIdentStart(r) || unicode.IsDigit(r) }

// ReadBookTomlTitle returns the title an mdBook's book.toml in the folder
// dir gives the book ([book] title), "" when there is none or it names no
// title; it is read as ReadSiteTitle reads a site config. A book.toml that
// cannot be parsed names nothing: the course's name then comes from the
// book's pages.
func ReadBookTomlTitle(dir string) string {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	return bookTomlTitle(root)
}

// bookTomlTitle is ReadBookTomlTitle in the book folder root.
func bookTomlTitle(root *os.Root) string {
	raw, _, err := readInRoot(root, "book.toml", maxConfigBytes)
	if err != nil {
		return ""
	}
	var conf struct {
		Book struct {
			Title string `toml:"title"`
		} `toml:"book"`
	}
	if checkNesting(raw, tomlSyntax) != nil {
		return ""
	}
	if _, err := toml.Decode(string(raw), &conf); err != nil {
		return ""
	}
	return courseOf(conf.Book.Title)
}

// rootPages are the stems of a book's root page, in the order looked for
// (.md, .mdx, .qmd or .Rmd: bookdown's index.Rmd names its book).
var rootPages = []string{"index", "readme", "intro"}

// RootPageTitle returns the course's name as the book's root page (its
// index, README or intro page) gives it: the front matter's title, else
// the first # heading, each without a leading "Welcome to", and skipped
// when it is only a word such as "Welcome" or "Introduction". It is ""
// when the book has no root page or the page names nothing.
func RootPageTitle(book fs.FS) string {
	entries, err := fs.ReadDir(book, ".")
	if err != nil {
		return ""
	}
	for _, stem := range rootPages {
		for _, e := range entries {
			name := e.Name()
			ext := path.Ext(name)
			if !e.Type().IsRegular() || !isPage(name) || strings.ToLower(strings.TrimSuffix(name, ext)) != stem {
				continue
			}
			raw, err := fs.ReadFile(book, name)
			if err != nil {
				continue
			}
			c := newChapter(name, raw, "", page.Vars{})
			titles := []string{c.page.FrontMatter["title"], c.page.Heading}
			for _, t := range titles {
				if t = courseOf(t); t != "" {
					return t
				}
			}
		}
	}
	return ""
}

var welcome = regexp.MustCompile(`(?i)^welcome\s+to\s+(?:the\s+)?`)

// genericTitles name a page, not a course.
var genericTitles = map[string]bool{"welcome": true, "introduction": true, "intro": true, "home": true, "overview": true,
	"index": true, "readme": true, "preface": true, "about": true, "getting started": true, "start here": true,
	"contents": true, "table of contents": true, "summary": true, "textbook": true, "book": true, "docs": true, "documentation": true}

// courseOf is a page title as a course's name: "" when it is generic.
func courseOf(title string) string {
	t := strings.TrimSpace(welcome.ReplaceAllString(strings.TrimSpace(title), ""))
	t = strings.TrimRight(t, "!. ")
	if genericTitles[strings.ToLower(t)] {
		return ""
	}
	return t
}

// generic reports a folder name that says what the folder holds rather
// than which book: "docs", "src", "chapters".
func generic(name string) bool {
	switch strings.ToLower(name) {
	case "docs", "doc", "src", "content", "book", "pages", "chapters":
		return true
	}
	return false
}

// language reports a two-letter lower-case folder name, a language's
// code ("en" in a doc-builder course's chapters/en).
func language(name string) bool {
	return len(name) == 2 && name == strings.ToLower(name) && unicode.IsLetter(rune(name[0])) && unicode.IsLetter(rune(name[1]))
}

// FolderTitle names a course after the book's folder: its name (the name
// of the folder above, for a folder called docs, src or the like, or a
// language's folder in one: chapters/en), its dashes and underscores made
// spaces, its first letter a capital.
func FolderTitle(dir string) string {
	dir = filepath.Clean(dir)
	name := filepath.Base(dir)
	// A folder that only holds the book's pages ("docs", "src"), or one
	// language's of them ("chapters/en" of a doc-builder course), is
	// named by the folder above.
	for {
		up := filepath.Dir(dir)
		parent := filepath.Base(up)
		if parent == "." || parent == string(filepath.Separator) || up == dir {
			break
		}
		if !generic(name) && !(language(name) && generic(parent)) {
			break
		}
		dir, name = up, parent
	}
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || unicode.IsSpace(r) }), " ")
	if name == "" || name == "." || name == string(filepath.Separator) {
		return "Textbook"
	}
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}
