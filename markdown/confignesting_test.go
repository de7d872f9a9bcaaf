package markdown

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestCheckNesting(t *testing.T) {
	deep := maxConfigNesting + 1
	tests := []struct {
		name   string
		src    string
		syntax configSyntax
		line   int // 0: passes
	}{
		{"toml tables", "[book]\ntitle = \"T\"\n[output.html]\nx = {a = {b = 1}}\n", tomlSyntax, 0},
		{"toml inline tables", "title = \"T\"\n\nx = " + strings.Repeat("{a=", deep) + "1" + strings.Repeat("}", deep), tomlSyntax, 3},
		{"toml arrays", "x = " + strings.Repeat("[", deep) + "1" + strings.Repeat("]", deep), tomlSyntax, 1},
		{"toml brackets in strings", "a = \"" + strings.Repeat("{", deep) + "\"\nb = '" + strings.Repeat("[", deep) + "\\'\n", tomlSyntax, 0},
		{"toml brackets in a multi-line string", "a = \"\"\"\n" + strings.Repeat("{\n", deep) + "\"\"\"\nb = '''" + strings.Repeat("[", deep) + "'''", tomlSyntax, 0},
		{"toml brackets in comments", strings.Repeat("# {{{{{{{{{{\n", deep), tomlSyntax, 0},
		{"toml line after a multi-line string", "a = \"\"\"\n\n\"\"\"\nx = " + strings.Repeat("[", deep), tomlSyntax, 4},
		{"js objects", "module.exports = {s: " + strings.Repeat("{a:", deep) + "1" + strings.Repeat("}", deep) + "};", jsSyntax, 1},
		{"js brackets in strings and comments", "// " + strings.Repeat("{", deep) + "\n/* " + strings.Repeat("[", deep) + " */ x = `" + strings.Repeat("{", deep) + "` + '{' + \"\\\"{\"", jsSyntax, 0},
		{"json", strings.Repeat(`{"a":`, deep) + "1" + strings.Repeat("}", deep), jsSyntax, 1},
		{"unbalanced closers", strings.Repeat("}", 3*deep) + "{}", jsSyntax, 0},
		{"at the bound", strings.Repeat("[", maxConfigNesting) + strings.Repeat("]", maxConfigNesting), jsSyntax, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkNesting([]byte(tt.src), tt.syntax)
			var ne errConfigNesting
			switch {
			case tt.line == 0 && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.line != 0 && !errors.As(err, &ne):
				t.Errorf("got %v, want a nesting error", err)
			case tt.line != 0 && ne.line != tt.line:
				t.Errorf("got line %d, want %d", ne.line, tt.line)
			}
		})
	}
}

// deepConfigs are configs whose brackets nest n levels under a title.
func deepConfigs(n int) map[string]string {
	return map[string]string{
		"book.toml":             "[book]\ntitle = \"Deep Book\"\nx = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n",
		"hugo.toml":             "title = \"Deep Book\"\nx = " + strings.Repeat("{a=", n) + "1" + strings.Repeat("}", n) + "\n",
		"docusaurus.config.js":  "module.exports = {title: 'Deep Book', url: 'u', x: " + strings.Repeat("{a:", n) + "1" + strings.Repeat("}", n) + "};\n",
		"docusaurus.config.mts": "export default {title: 'Deep Book', url: 'u', x: " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "};\n",
	}
}

// writeDeepConfig lays a book with the config in the book's folder (or,
// for a Docusaurus config, the folder above) and returns the book's.
func writeDeepConfig(t testing.TB, name, src string) string {
	site := t.TempDir()
	book := filepath.Join(site, "docs")
	dir := book
	if strings.HasPrefix(name, "docusaurus") {
		dir = site
	}
	for p, s := range map[string]string{filepath.Join(book, "intro.md"): "# Intro\n\nWords.\n", filepath.Join(dir, name): src} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return book
}

// courseName reads the course's name as a start does, from each config.
func courseName(book string) string {
	for _, t := range []string{ReadSiteTitle(filepath.Dir(book)), ReadBookTomlTitle(book), ReadLayoutTitle(book)} {
		if t != "" {
			return t
		}
	}
	return ""
}

// A config nested past the bound names nothing and is warned about by
// name; one within it still names the course.
func TestDeepConfigTitles(t *testing.T) {
	for name := range deepConfigs(1) {
		t.Run(name, func(t *testing.T) {
			shallow := writeDeepConfig(t, name, deepConfigs(3)[name])
			if got := courseName(shallow); got != "Deep Book" {
				t.Errorf("3 levels: got %q, want the title", got)
			}
			var warned []string
			WarnNestedConfigs(shallow, func(p string, err error) { warned = append(warned, p) })
			if len(warned) > 0 {
				t.Errorf("3 levels warned: %q", warned)
			}

			deep := writeDeepConfig(t, name, deepConfigs(maxConfigNesting + 1)[name])
			if got := courseName(deep); got != "" {
				t.Errorf("%d levels: got %q, want no title", maxConfigNesting+1, got)
			}
			var msgs []string
			WarnNestedConfigs(deep, func(p string, err error) { msgs = append(msgs, p+": "+err.Error()) })
			if len(msgs) != 1 || !strings.Contains(msgs[0], name+": not read: its brackets nest deeper than") {
				t.Errorf("warnings %q, want one naming %s", msgs, name)
			}
		})
	}
}

// A sidebar nested past the bound is not read, with a warning, and the
// book is read by its folders.
func TestDeepSidebar(t *testing.T) {
	n := maxConfigNesting + 1
	fsys := fstest.MapFS{
		"sidebars.js": {Data: []byte("module.exports = {s: ['intro', " + strings.Repeat("{a:", n) + "1" + strings.Repeat("}", n) + "]};\n")},
		"intro.md":    {Data: []byte("# Intro\n\nWords.\n")},
	}
	_, warned := loadWarned(t, fsys)
	if !strings.Contains(strings.Join(warned, "\n"), "sidebars.js: not read, the order comes from folders, _category_.json and number prefixes: its brackets nest deeper than") {
		t.Errorf("warnings %q", warned)
	}
}

// Naming the course from a config of 100,000 levels costs what a shallow
// one does: under a millisecond, where the TOML decoder alone took seconds
// at 2,000 levels. The target: a start with such a config takes at most 1 s
// of CPU and 100 MB more than without it.
func BenchmarkDeepConfigTitle(b *testing.B) {
	for name, src := range deepConfigs(100000) {
		book := writeDeepConfig(b, name, src)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				courseName(book)
				WarnNestedConfigs(book, func(string, error) {})
			}
		})
	}
}
