package page

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Vars are the values a site's config gives the placeholders of its
// pages, which the site shows in their place: Hugo's {{% param "x" %}}
// and MyST's {{ name }} substitutions.
type Vars struct {
	// Params are a Hugo site's params, by dotted lower-case key
	// ("ui.sidebar_menu_compact").
	Params map[string]string
	// Substitutions are a MyST site's myst_substitutions (conf.py); a
	// page's front matter may add its own.
	Substitutions map[string]string
	// Jinja: the site renders each {{ … }} outside code as a Jinja
	// expression (MyST's substitution extension is on). One the tutor
	// cannot resolve (`{{ env.docname | upper }}`) shows a value it does
	// not know, and its source is no text: it goes. Without Jinja, an
	// unknown reference stays as written.
	Jinja bool
}

// substitution is a MyST substitution reference, {{ name }}, with
// Jinja filters ({{ name | upper }}) or any other Jinja expression.
var substitution = regexp.MustCompile(`\{\{(\s*)([^{}]*?)\s*\}\}`)

// blockSubstitution is a line that is only a reference: its value is
// read as the lines of Markdown it holds (a directive, a list).
var blockSubstitution = regexp.MustCompile(`^(\s*)\{\{\s*[^{}]*?\s*\}\}\s*$`)

// substitutionName is a reference's name and its filters.
var substitutionName = regexp.MustCompile(`^([A-Za-z_][\w.-]*)((?:\s*\|\s*[a-z]+)*)$`)

// ReadWith reads a page as Read does, its placeholders given the site's
// values.
func ReadWith(raw []byte, vars Vars) *Page {
	clean := CleanText(raw)
	fm, body := SplitFrontMatter(clean)
	vars.Substitutions = withPageSubstitutions(vars.Substitutions, clean, body, &vars.Jinja)
	p := &Page{FrontMatter: fm, Body: stripMDX(body, vars)}
	p.blocks = parseBlocks(p.Body)
	for _, b := range p.blocks {
		if b.kind == kindHeading && b.level == 1 {
			p.Heading = b.title
			break
		}
	}
	return p
}

// withPageSubstitutions adds the substitutions a page's front matter
// defines (`substitutions:` or `myst: substitutions:`) to the site's; a
// page's own win. A page that defines some has MyST's substitution
// extension on: jinja is set.
func withPageSubstitutions(site map[string]string, clean, body []byte, jinja *bool) map[string]string {
	block := string(clean[:len(clean)-len(body)])
	if !strings.Contains(block, "substitutions") {
		return site
	}
	block = strings.TrimPrefix(strings.TrimPrefix(block, "\ufeff"), "---\n")
	block = strings.TrimSuffix(strings.TrimRight(block, "\n"), "---")
	var fm struct {
		Substitutions map[string]any `yaml:"substitutions"`
		Myst          struct {
			Substitutions map[string]any `yaml:"substitutions"`
		} `yaml:"myst"`
	}
	if yaml.Unmarshal([]byte(block), &fm) != nil {
		return site
	}
	out := map[string]string{}
	for k, v := range site {
		out[k] = v
	}
	for _, m := range []map[string]any{fm.Substitutions, fm.Myst.Substitutions} {
		*jinja = *jinja || len(m) > 0
		for k, v := range m {
			switch v.(type) {
			case string, int, float64, bool:
				out[k] = fmt.Sprint(v)
			}
		}
	}
	return out
}

// Substitution values are read once per page and bounded: a value may
// refer to others (MyST renders it with them), at most
// maxSubstitutionDepth deep, circular ones give up, and a page's
// substitutions add at most maxSubstitutedBytes (values that double at
// each level would otherwise fill memory).
const (
	maxSubstitutionDepth = 8
	maxSubstitutedBytes  = 4 << 20
)

// substituter replaces a page's substitution references.
type substituter struct {
	subs  map[string]string
	jinja bool
	// resolved are the values with their own references replaced, by
	// name; resolving marks the names being resolved (a cycle).
	resolved  map[string][]string
	resolving map[string]bool
	budget    int
}

// substitute replaces the substitution references of a page's text,
// outside code (MyST does not substitute in code), by their values. A
// line that is only a reference becomes the lines of its value; a
// reference within a line becomes its value's text on one line. An
// unknown name stays as written, unless the site reads Jinja (see
// Vars.Jinja) and the reference is written with spaces, as Jinja is
// (`{{x}}` with none may be LaTeX).
func substitute(lines []string, vars Vars) []string {
	if len(vars.Substitutions) == 0 && !vars.Jinja || !hasReference(lines) {
		return lines
	}
	s := &substituter{subs: vars.Substitutions, jinja: vars.Jinja, resolved: map[string][]string{}, resolving: map[string]bool{}, budget: maxSubstitutedBytes}
	return s.lines(lines, 0)
}

// hasReference reports a line that may hold a reference.
func hasReference(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "{{") {
			return true
		}
	}
	return false
}

// lines replaces the references of lines outside code; depth counts the
// values being resolved around them.
func (s *substituter) lines(lines []string, depth int) []string {
	fence := ""
	out := make([]string, 0, len(lines))
	for _, line := range lines {
		if fence != "" {
			out = append(out, line)
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil && isCodeFence(line) {
			fence = m[1]
			out = append(out, line)
			continue
		}
		if !strings.Contains(line, "{{") {
			out = append(out, line)
			continue
		}
		if m := blockSubstitution.FindStringSubmatch(line); m != nil {
			if v, ok := s.value(substitution.FindStringSubmatch(line), depth); ok {
				for _, l := range v {
					out = append(out, m[1]+l)
				}
				continue
			}
		}
		out = append(out, outsideCodeSpans(line, func(text string) string {
			return substitution.ReplaceAllStringFunc(text, func(ref string) string {
				v, ok := s.value(substitution.FindStringSubmatch(ref), depth)
				if !ok {
					return ref
				}
				return inlineValue(v)
			})
		}))
	}
	return out
}

// value is the lines a reference (substitution's submatches) stands
// for; ok false when it stays as written.
func (s *substituter) value(m []string, depth int) ([]string, bool) {
	n := substitutionName.FindStringSubmatch(m[2])
	var v []string
	known := false
	if n != nil {
		v, known = s.resolve(n[1], depth)
	}
	if !known {
		if s.jinja && m[1] != "" {
			return nil, true // an expression the tutor cannot evaluate
		}
		return nil, false
	}
	for _, f := range strings.Split(n[2], "|")[1:] {
		var ok bool
		if v, ok = jinjaFilter(v, strings.TrimSpace(f)); !ok {
			return nil, s.jinja && m[1] != ""
		}
	}
	size := 0
	for _, l := range v {
		size += len(l) + 1
	}
	if size > s.budget {
		return nil, false
	}
	s.budget -= size
	return v, true
}

// resolve is a name's value, its own references replaced, as lines.
func (s *substituter) resolve(name string, depth int) ([]string, bool) {
	if v, ok := s.resolved[name]; ok {
		return v, true
	}
	raw, ok := s.subs[name]
	if !ok || s.resolving[name] || depth >= maxSubstitutionDepth {
		return nil, false
	}
	v := strings.Split(strings.TrimRight(raw, "\n"), "\n")
	if strings.Contains(raw, "{{") {
		s.resolving[name] = true
		v = s.lines(v, depth+1)
		delete(s.resolving, name)
	}
	s.resolved[name] = v
	return v, true
}

// inlineValue is a value as a reference within a line shows it: its
// text on one line, without the fences and options of a directive it
// holds.
func inlineValue(v []string) string {
	if len(v) == 1 {
		return v[0]
	}
	var parts []string
	for _, l := range v {
		t := strings.TrimSpace(l)
		if t == "" || fenceOpen.MatchString(l) || strings.HasPrefix(t, ":::") || mystOption.MatchString(l) {
			continue
		}
		parts = append(parts, t)
	}
	return strings.Join(parts, " ")
}

// jinjaFilter applies one of Jinja's string filters; ok false for one
// the tutor does not know.
func jinjaFilter(v []string, name string) ([]string, bool) {
	var f func(string) string
	switch name {
	case "upper":
		f = strings.ToUpper
	case "lower":
		f = strings.ToLower
	case "trim":
		f = strings.TrimSpace
	case "capitalize":
		f = func(s string) string {
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
		}
	default:
		return nil, false
	}
	out := make([]string, len(v))
	for i, l := range v {
		out[i] = f(l)
	}
	return out, true
}

// isCodeFence reports a fence line that opens code: a plain fence or a
// code directive, not a MyST directive whose body is text.
func isCodeFence(line string) bool {
	m := directiveFence.FindStringSubmatch(line)
	if m == nil {
		return true
	}
	name := strings.ToLower(m[3])
	return codeDirectives[name] || chunkLanguages[name]
}
