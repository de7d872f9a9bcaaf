package web

import (
	"bytes"
	"testing"
)

// renderString renders Markdown as the reader's page does.
func renderString(t *testing.T, src string) string {
	t.Helper()
	var out bytes.Buffer
	if err := markdown.Convert([]byte(src), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// Math reaches the page as the site's math renderer receives it: no
// Markdown rule (emphasis, strikethrough, escapes) touches it, and prices
// stay prices.
func TestMathKeptWhole(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"underscores", `Let $\text{die}_{i}$ and $\text{die}_{j}$ be rolls.`,
			`<p>Let <span class="math inline">\(\text{die}_{i}\)</span> and <span class="math inline">\(\text{die}_{j}\)</span> be rolls.</p>` + "\n"},
		{"thin space", `A width of \(3\,\mathrm{m}\) here.`,
			`<p>A width of <span class="math inline">\(3\,\mathrm{m}\)</span> here.</p>` + "\n"},
		{"tildes in display math", "The balance:\n\n$$\n(1-\\alpha) S ~ = ~ \\epsilon \\sigma T^4\n$$\n\nSo it holds.",
			"<p>The balance:</p>\n<div class=\"math display\">\\[(1-\\alpha) S ~ = ~ \\epsilon \\sigma T^4\\]</div>\n<p>So it holds.</p>\n"},
		{"prices", "It costs $5 and $10, or $20,000.", "<p>It costs $5 and $10, or $20,000.</p>\n"},
		{"closing dollar before a digit", "From $a$2 to $b$.", `<p>From <span class="math inline">\(a$2 to $b\)</span>.</p>` + "\n"},
		{"escaped dollar", `Pay \$5 for $x$.`, `<p>Pay $5 for <span class="math inline">\(x\)</span>.</p>` + "\n"},
		{"display in a paragraph", "So $$a*b*c$$ holds.", `<p>So <span class="math display">\[a*b*c\]</span> holds.</p>` + "\n"},
		{"bracket display", "\\[\n x_1 + x_2 < y \\\\ z\n\\]", "<div class=\"math display\">\\[x_1 + x_2 &lt; y \\\\ z\\]</div>\n"},
		{"one-line block with a label", "$$E = m c^2$$ {#eq-energy}\n\nText.", "<div class=\"math display\">\\[E = m c^2\\]</div>\n<p>Text.</p>\n"},
		{"environment", "\\begin{align}\na &= b_1 \\\\\nc &= d_2\n\\end{align}", "<div class=\"math display\">\\begin{align}\na &amp;= b_1 \\\\\nc &amp;= d_2\n\\end{align}</div>\n"},
		{"unclosed display is text", "$$ not math\n\nText.", "<p>$$ not math</p>\n<p>Text.</p>\n"},
		{"inline over two lines", "The sum $a_1 +\na_2$ is small.", "<p>The sum <span class=\"math inline\">\\(a_1 +\na_2\\)</span> is small.</p>\n"},
		{"code is not math", "`$x_1$` and\n\n```\n$y_2$\n```", "<p><code>$x_1$</code> and</p>\n<pre><code>$y_2$\n</code></pre>\n"},
		{"in a list", "- first $a_b$ and *em*", "<ul>\n<li>first <span class=\"math inline\">\\(a_b\\)</span> and <em>em</em></li>\n</ul>\n"},
	}
	for _, tt := range tests {
		if got := renderString(t, tt.in); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
