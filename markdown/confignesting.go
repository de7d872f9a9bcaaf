package markdown

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// A config's decoder may cost far more than linear time and memory in how
// deeply its tables, arrays or objects nest (a TOML decoder given
// x = {a={a={...}}} at a few thousand levels takes seconds and hundreds
// of MB). A config is therefore scanned once, byte by byte, before it is
// decoded, and one that nests deeper than any real config is not decoded.
// YAML and JSON need no scan: their decoders stop at 10,000 levels, and
// cheaply.

// maxConfigNesting bounds the nesting of a config's brackets: a real
// config nests five or six levels, a sidebar a few more than its table of
// contents (maxTocDepth levels of categories, each an object in a list).
const maxConfigNesting = 4 * maxTocDepth

// configSyntax is what the scan must skip to count only real brackets.
type configSyntax int

const (
	tomlSyntax configSyntax = iota // # comments; "..." with escapes, '...' without, both also tripled
	jsSyntax                       // // and /* */ comments; "...", '...' and `...`, with escapes (JSON too)
)

// errConfigNesting reports a config nested too deeply to be decoded.
type errConfigNesting struct {
	line int
}

func (e errConfigNesting) Error() string {
	return fmt.Sprintf("its brackets nest deeper than %d levels (line %d), more than a real config does", maxConfigNesting, e.line)
}

// checkNesting returns an errConfigNesting when the config's brackets
// ({ and [, outside strings and comments) nest deeper than
// maxConfigNesting. It reads each byte once and allocates nothing.
func checkNesting(b []byte, syntax configSyntax) error {
	depth, line := 0, 1
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\n':
			line++
		case c == '{' || c == '[':
			depth++
			if depth > maxConfigNesting {
				return errConfigNesting{line: line}
			}
		case c == '}' || c == ']':
			if depth > 0 {
				depth--
			}
		case c == '#' && syntax == tomlSyntax,
			c == '/' && syntax == jsSyntax && i+1 < len(b) && b[i+1] == '/':
			if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
				i += j - 1 // the newline is counted next
			} else {
				i = len(b)
			}
		case c == '/' && syntax == jsSyntax && i+1 < len(b) && b[i+1] == '*':
			j := bytes.Index(b[i+2:], []byte("*/"))
			if j < 0 {
				return nil
			}
			line += bytes.Count(b[i:i+2+j], []byte("\n"))
			i += 2 + j + 1
		case c == '"' || c == '\'' || c == '`' && syntax == jsSyntax:
			end := stringEnd(b, i, syntax)
			line += bytes.Count(b[i:end], []byte("\n"))
			i = end - 1
		}
	}
	return nil
}

// stringEnd is the index after the string opening at i (or the end of its
// line, for one left open).
func stringEnd(b []byte, i int, syntax configSyntax) int {
	q := b[i]
	escapes := syntax == jsSyntax || q == '"'
	if syntax == tomlSyntax && i+2 < len(b) && b[i+1] == q && b[i+2] == q {
		// A TOML multi-line string: to the next three quotes.
		for j := i + 3; j < len(b); j++ {
			switch {
			case escapes && b[j] == '\\':
				j++
			case b[j] == q && j+2 < len(b) && b[j+1] == q && b[j+2] == q:
				return j + 3
			}
		}
		return len(b)
	}
	for j := i + 1; j < len(b); j++ {
		switch {
		case escapes && b[j] == '\\':
			j++
		case b[j] == q:
			return j + 1
		case b[j] == '\n' && q != '`':
			return j
		}
	}
	return len(b)
}

// nestingSyntax is the syntax checkNesting scans a config file in, ok
// false for a YAML or other file that needs no scan.
func nestingSyntax(file string) (configSyntax, bool) {
	switch path.Ext(file) {
	case ".toml":
		return tomlSyntax, true
	case ".js", ".ts", ".mjs", ".mts", ".cjs", ".json":
		return jsSyntax, true
	}
	return 0, false
}

// configNesting is checkNesting for the config file named file.
func configNesting(file string, b []byte) error {
	if syntax, ok := nestingSyntax(file); ok {
		return checkNesting(b, syntax)
	}
	return nil
}

// WarnNestedConfigs tells warn of each config the course's name would be
// read from (book.toml and a Hugo config in the book's folder dir, a
// Docusaurus config in the folder above) that nests too deeply to be
// decoded: the name then comes from the book's pages or folder.
func WarnNestedConfigs(dir string, warn func(path string, err error)) {
	check := func(dir string, names []string) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return
		}
		defer root.Close()
		for _, name := range names {
			if raw, _, err := readInRoot(root, name, maxConfigBytes); err == nil {
				if err := configNesting(name, raw); err != nil {
					warn(filepath.Join(dir, name), fmt.Errorf("not read: %w; the course is named from the book's pages instead", err))
				}
			}
		}
	}
	check(dir, append([]string{"book.toml"}, hugoConfigs...))
	check(filepath.Dir(dir), SiteConfigs)
}
