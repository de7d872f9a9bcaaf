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
}

// substitution is a MyST substitution reference, {{ name }}.
var substitution = regexp.MustCompile(`\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}`)

// ReadWith reads a page as Read does, its placeholders given the site's
// values.
func ReadWith(raw []byte, vars Vars) *Page {
	clean := CleanText(raw)
	fm, body := SplitFrontMatter(clean)
	vars.Substitutions = withPageSubstitutions(vars.Substitutions, clean, body)
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
// page's own win.
func withPageSubstitutions(site map[string]string, clean, body []byte) map[string]string {
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
		for k, v := range m {
			switch v.(type) {
			case string, int, float64, bool:
				out[k] = fmt.Sprint(v)
			}
		}
	}
	return out
}

// substitute replaces the substitution references of a page's text,
// outside code (MyST does not substitute in code), by their values; an
// unknown name stays as written.
func substitute(lines []string, subs map[string]string) []string {
	if len(subs) == 0 {
		return lines
	}
	fence := ""
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = line
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil && isCodeFence(line) {
			fence = m[1]
			continue
		}
		if !strings.Contains(line, "{{") {
			continue
		}
		out[i] = outsideCodeSpans(line, func(s string) string {
			return substitution.ReplaceAllStringFunc(s, func(ref string) string {
				if v, ok := subs[substitution.FindStringSubmatch(ref)[1]]; ok {
					return v
				}
				return ref
			})
		})
	}
	return out
}

// isCodeFence reports a fence line that opens code: a plain fence or a
// code directive, not a MyST directive whose body is text.
func isCodeFence(line string) bool {
	m := directiveFence.FindStringSubmatch(line)
	if m == nil {
		return true
	}
	name := strings.ToLower(m[3])
	return codeDirectives[name] || chunkLanguages[name] || name == mystExample
}
