package page

import (
	"strconv"
	"strings"
	"testing"
)

// A myst-example shows its source as code, then its rendering, in either
// fence; its options go, a :highlight: names the code's language.
func TestMystExample(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a comment's source stays, its rendering is empty",
			":::{myst-example}\n% my comment\n:::",
			"```md\n% my comment\n```"},
		{"a dropdown note: the source keeps its option, the rendering is the note's text",
			"::::{myst-example}\n\n:::{note}\n:class: dropdown\n\nCollapsed text.\n:::\n\n::::",
			"```md\n:::{note}\n:class: dropdown\n\nCollapsed text.\n:::\n```\n\n\n\nCollapsed text."},
		{"a code block with a caption, in a backtick fence",
			"`````{myst-example}\n```{code-block} python\n:caption: Hello\n\nprint(1)\n```\n`````",
			"````md\n```{code-block} python\n:caption: Hello\n\nprint(1)\n```\n````\n\n```python\n\nprint(1)\n```"},
		{"its own options go, :highlight: is the language",
			"```{myst-example}\n:highlight: html\n<b>bold</b>\n```",
			"```html\n<b>bold</b>\n```\n\n<b>bold</b>"},
		{"shown as an example inside code, it stays as written",
			"````md\n:::{myst-example}\nHi.\n:::\n````",
			"````md\n:::{myst-example}\nHi.\n:::\n````"},
	}
	for _, tt := range tests {
		got := strings.TrimSpace(string(stripMDX([]byte(tt.in), Vars{})))
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// An eval-rst block is its reStructuredText's plain text: directives
// that show no text go, admonitions keep theirs, code stays code.
func TestEvalRST(t *testing.T) {
	in := "# Home\n\n```{eval-rst}\n.. _home-label:\n\nWelcome to :doc:`the course <intro>`, see ``make html``.\n\n" +
		".. toctree::\n   :maxdepth: 2\n\n   intro\n\n.. note:: Bring a laptop.\n\n   Charge it first.\n\n" +
		".. automodule:: course.grades\n   :members:\n\n.. code-block:: python\n\n   print(1)\n\nRun it::\n\n   make html\n\n" +
		"Outline\n-------\n\n.. image:: logo.png\n```\n"
	got := string(stripMDX([]byte(in), Vars{}))
	for _, want := range []string{"Welcome to the course, see `make html`.", "Bring a laptop.", "Charge it first.",
		"```python\nprint(1)\n```", "Run it:\n", "```\nmake html\n```", "Outline"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	for _, raw := range []string{"..", "::", "toctree", "maxdepth", "intro\n", "automodule", ":members:", "-------", "logo.png", "home-label", "{eval-rst}"} {
		if strings.Contains(got, raw) {
			t.Errorf("raw reStructuredText %q left in:\n%s", raw, got)
		}
	}
}

// A line that is only a reference becomes its value's lines (a directive
// renders as one, not as code); values refer to others; on a site that
// reads Jinja an expression the tutor cannot resolve goes, filters apply.
func TestMystBlockSubstitutions(t *testing.T) {
	site := map[string]string{
		"key1": "I'm a **substitution**",
		"key2": "```{note}\n{{ key1 }}\n```\n",
		"loop": "{{ loop }} again",
		"name": "Quill",
	}
	tests := []struct {
		name, in, want string
		jinja          bool
	}{
		{"block level is Markdown", "Intro.\n\n{{ key2 }}\n\nAfter.", "Intro.\n\n\nI'm a **substitution**\n\n\nAfter.", false},
		{"inline, a directive's text", "| a | {{key2}} |", "| a | I'm a **substitution** |", false},
		{"a cycle stays as written", "{{ loop }}.", "{{ loop }} again.", false},
		{"filters", "{{ name | upper }} and {{ name|lower }}", "QUILL and quill", true},
		{"an expression goes under Jinja", "Docname: {{ env.docname | upper }}.\n\n{{ '[a](b)'.format(x) }}", "Docname: .", true},
		{"LaTeX braces stay", "$\\frac{{a}}{b}$", "$\\frac{{a}}{b}$", true},
		{"without Jinja an unknown name stays", "Keep {{ other }}.", "Keep {{ other }}.", false},
	}
	for _, tt := range tests {
		got := strings.TrimSpace(string(ReadWith([]byte(tt.in), Vars{Substitutions: site, Jinja: tt.jinja}).Body))
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// Values that double at each level stop at the page's budget.
func TestSubstitutionsAreBounded(t *testing.T) {
	subs := map[string]string{"a0": strings.Repeat("x", 1000)}
	for i := 1; i < 40; i++ {
		subs["a"+strconv.Itoa(i)] = "{{ a" + strconv.Itoa(i-1) + " }}{{ a" + strconv.Itoa(i-1) + " }}"
	}
	body := ReadWith([]byte(strings.Repeat("{{ a39 }}\n", 100)), Vars{Substitutions: subs}).Body
	if len(body) > 2*maxSubstitutedBytes {
		t.Fatalf("%d bytes substituted, want at most about %d", len(body), maxSubstitutedBytes)
	}
}
