package page

import (
	"strings"
	"testing"
)

func TestPlainDialects(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"mkdocs admonition", "Before.\n\n!!! warning \"Mind the gap\"\n    Keep clear of the doors.\n\n    Stand back.\n\nAfter.",
			"Before.\n\n\nMind the gap\n\nKeep clear of the doors.\n\nStand back.\n\nAfter."},
		{"mkdocs admonition without title", "??? note\n    Folded text.\nOut.", "\nFolded text.\nOut."},
		{"mkdocs nested", "!!! tip\n    Outer.\n\n    !!! note \"Inner\"\n        Deep.\n\n    Outer again.",
			"\nOuter.\n\n\nInner\n\nDeep.\n\nOuter again."},
		{"mkdocs tabs with code", "=== \"Python\"\n\n    ```python\n    print(1)\n    ```\n\n=== \"Go\"\n    Go text.",
			"\nPython\n\n\n```python\nprint(1)\n```\n\n\nGo\n\nGo text."},
		{"setext is not a tab", "Title\n=====\n\nText.", "Title\n=====\n\nText."},
		{"pymdownx block", "/// tip | Use a venv\n\nIt keeps things apart.\n\n///", "\nUse a venv\n\n\nIt keeps things apart.\n\n"},
		{"snippet in a code block names its file", "Code:\n\n```Python hl_lines=\"2\"\n{!> ../../docs_src/x.py!}\n```\n\nText.", "Code:\n\n```Python hl_lines=\"2\"\ndocs_src/x.py\n```\n\nText."},
		{"snippet line goes", "{* ../../docs_src/app.py hl[3] *}\nText.", "Text."},
		{"myst admonition", "```{note}\n:class: dropdown\nRead this first.\n```", "\nRead this first.\n"},
		{"myst admonition title", "```{admonition} A *title*\nBody.\n```", "\nA *title*\n\nBody.\n"},
		{"myst code cell", "```{code-cell} ipython3\n:tags: [hide-input]\nx = 1\n```", "```python\nx = 1\n```"},
		{"myst nested", "````{exercise}\n:label: ex1\nCompute it.\n```{code-cell} python\ny = 2\n```\n````",
			"\nCompute it.\n```python\ny = 2\n```\n"},
		{"myst math directive", "```{math}\n:label: eq:kt\nk_{t+1} = s k_t^\\alpha\n```\nText.", "\n$$\nk_{t+1} = s k_t^\\alpha\n$$\n\nText."},
		{"myst dropped", "```{index} single: growth\n```\nText.", "Text."},
		{"myst colon fence", ":::{tip} Quick\nDo it.\n:::", ":::div Quick\nDo it.\n:::"},
		{"myst roles", "See {doc}`the lecture <pv>`, {eq}`eq:pv`, {term}`present value` and {math}`x^2`.",
			"See the lecture, (eq:pv), present value and $x^2$."},
		{"myst target and breaks", "(sec-intro)=\n# Intro\n+++\n% a comment\nText.", "# Intro\nText."},
		{"r chunk", "```{r fit, echo=TRUE}\n#| label: fit\nlm(y ~ x)\n```", "```r\nlm(y ~ x)\n```"},
		{"hidden r chunk", "```{r fig1, fig.cap='(ref:a)', echo=FALSE}\nknitr::include_graphics(\"a.png\")\n```\nText.", "Text."},
		{"quarto chunk option", "```{python}\n#| echo: false\nplot()\n```\nText.", "Text."},
		{"quarto cell with a filename", "```{zsh filename=\"Code\"}\ngit status\n```", "```zsh title=\"Code\"\ngit status\n```"},
		{"cell header with a comma", "```{zsh, filename=\"Output\"}\nOn branch main\n```", "```zsh title=\"Output\"\nOn branch main\n```"},
		{"pandoc class header", "```{.python filename=\"a.py\"}\n#| not an option here\nx = 1\n```", "```python title=\"a.py\"\n#| not an option here\nx = 1\n```"},
		{"bare cell of a known engine", "```{zsh}\nls\n```", "```zsh\nls\n```"},
		{"cell options and filename option", "```{python}\n#| label: fit\n#| filename: \"fit.py\"\nfit()\n```", "```python title=\"fit.py\"\nfit()\n```"},
		{"r chunk header echo=F", "```{r setup, echo=F, fig.cap=\"a, b\"}\nlibrary(x)\n```\nText.", "Text."},
		{"cell header with a label word", "```{markdown label, filename='Output'}\n# Title\n```", "```markdown title=\"Output\"\n# Title\n```"},
		{"inline r", "There are `r nrow(df)` rows.", "There are `nrow(df)` rows."},
		{"citations", "As shown [@smith2020; see @lee2019, p. 4], and [@doe].", "As shown (smith2020; see lee2019, p. 4), and (doe)."},
		{"link text with @ is no citation", "Write to [@team](https://example.org).", "Write to [@team](https://example.org)."},
		{"email is no cross-reference", "Mail ana@fig-tree.org.", "Mail ana@fig-tree.org."},
		{"cross-references", "See @fig-cell-cycle and Table \\@ref(tab:codes).", "See Figure cell cycle and Table codes."},
		{"callout", "::: {.callout-note title=\"Remember\"}\nCells divide.\n:::", ":::div Remember\nCells divide.\n:::"},
		{"fenced div", ":::: {.columns}\nText.\n::::", "::::div\nText.\n::::"},
		{"shortcode", "Text {{< pagebreak >}} more.", "Text  more."},
		{"gitbook exercise", "{% exercise %}\nAdd two numbers.\n{% solution %}\nlet x = 1 + 2;\n{% endexercise %}",
			"\nAdd two numbers.\n\n``` title=\"Solution\"\nlet x = 1 + 2;\n```\n"},
		{"gitbook exercise parts", "{% exercise lang=\"js\" %}\nSet `x`.\n\n{% initial %}\nvar x =\n\n{% solution %}\nvar x = 10;\n{% validation %}\nassert(x == 10);\n{% context %}\nfunction magic() {}\n{% endexercise %}\nAfter.",
			"\nSet `x`.\n\n\n```js title=\"Starter code\"\nvar x =\n```\n\n```js title=\"Solution\"\nvar x = 10;\n```\n\n\n\nAfter."},
		{"gitbook exercise never closed", "{% exercise %}\nDo it.\n{% solution %}\nx()", "\nDo it.\n\n``` title=\"Solution\"\nx()\n```\n"},
		{"style block", "Before.\n\n<style>\n.card { margin: 0 }\n\n.td-card p { color: red; }\n</style>\n\nAfter.", "Before.\n\n\nAfter."},
		{"style on one line", "Before.\n<STYLE>.a{b:c}</STYLE>\nAfter.", "Before.\nAfter."},
		{"script block", "<script type=\"module\">\nrun();\n</script> Then.", " Then."},
		{"style in code stays", "```html\n<style>\np { x: y }\n</style>\n```", "```html\n<style>\np { x: y }\n</style>\n```"},
		{"mkdocstrings heading", "#### ::: mkdocs.plugins.event_priority\n\nText.", "Text."},
		{"footnotes", "A claim.[^src]\n\n[^src]: Where it comes from.", "A claim.\n"},
		{"footnote-like code", "Match `[^/]+` or `x[^1]`.", "Match `[^/]+` or `x[^1]`."},
		{"mkdocstrings", "::: shop.cart.Cart\n    options:\n      show_source: false\n\nAfter.", "After."},
		{"mkdocs-click", "::: mkdocs-click\n    :module: shop.cli\n\nAfter.", "After."},
		{"table caption", ": Prices by size {#tbl-prices}", "Prices by size"},
		{"markdown shortcode", "{{% alert title=\"Note\" %}}Keep a backup.{{% /alert %}}", "Keep a backup."},
		{"heading attributes", "# Preface {-}\n## Growth {#sec-growth .unnumbered}", "# Preface\n## Growth {#sec-growth}"},
		{"heading with braces kept", "## Sets {a, b}", "## Sets {a, b}"},
		{"ref caption", "(ref:cell) A cell dividing.", "A cell dividing."},
		{"span attributes", "[Small]{.smallcaps} and ![x](a.png){width=50%}", "[Small] and ![x](a.png)"},
		{"code is left alone", "```python\n@fig-x [@a]\n```", "```python\n@fig-x [@a]\n```"},
		{"jsx in code spans is no role", "Pass `size={undefined}`. But `size={null}` or `@fig-x` stays.", "Pass `size={undefined}`. But `size={null}` or `@fig-x` stays."},
		{"definition list", "Quadrat\n: A frame.", "Quadrat\nA frame."},
		{"role over two lines", "In our {doc}`earlier lecture\n<markov>` we saw it.\n\nNext.", "In our earlier lecture we saw it.\n\nNext."},
		{"unclosed role at a paragraph's end", "A {doc}`broken\n\nNext.", "A {doc}`broken\n\nNext."},
		{"role after dashes", "Equations (a)--{eq}`b` hold.", "Equations (a)--(b) hold."},
		{"cell break with metadata", "+++ {\"tags\": []}\nText.", "Text."},
		{"colon directive options", ":::{exercise}\n:label: ex2\n\nSolve it.\n:::", ":::div \n\nSolve it.\n:::"},
		{"ref caption before a link", "(ref:alve)[A wall.](https://example.org)", "[A wall.](https://example.org)"},
		{"braces in a code span are no role", "Use `{x}` here and\nthere `y`.", "Use `{x}` here and\nthere `y`."},
		{"myst label under a heading", "# Batteries\n:label: sec:batteries\nA battery.", "# Batteries\nA battery."},
		{"myst option without a space", "```{figure} f.png\n:label:fig:plane\n:width: 50%\nA disk.\n```", "\nA disk.\n"},
		{"myst comment lines", "Text.\n%%%```{figure} a.png\n%%%:label: x\n%%%```\n%TODO check\nMore.", "Text.\nMore."},
		{"r pipe at a line's start is no comment", "%>% filter(x) keeps rows.", "%>% filter(x) keeps rows."},
		{"html pre block is code", "Like this:\n\n<pre><code>p = &#96;r x&#96;,\nq = 1\n</code></pre>\n\nDone.", "Like this:\n\n```\np = `r x`,\nq = 1\n```\n\nDone."},
		{"myst options as a YAML block", "```{note}\n---\nclass: tip\n---\nRead this.\n```", "\nRead this.\n"},
		{"colon directive options as a YAML block", ":::{tip}\n---\nclass: dropdown\n---\nDo it.\n:::", ":::div \nDo it.\n:::"},
		{"a toctree's YAML block goes with it", "```{toctree}\n---\nmaxdepth: 2\n---\nintro\n```\nText.", "Text."},
		{"a rule in a code block stays", "```yaml\n---\nkey: 1\n```", "```yaml\n---\nkey: 1\n```"},
		{"plain", "Just text.\n\n- a list", "Just text.\n\n- a list"},
	}
	for _, tt := range tests {
		got := strings.Join(plainDialects(strings.Split(tt.in, "\n")), "\n")
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
