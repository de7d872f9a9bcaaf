package page

import (
	"strings"
	"testing"
)

func TestHugoShortcodes(t *testing.T) {
	params := map[string]string{"release": "2.4", "tools.editor": "nano"}
	tests := []struct {
		name, in, want string
	}{
		{"param", `Install {{% param "release" %}} with {{< param "Tools.Editor" >}}.`, "Install 2.4 with nano."},
		{"unknown param goes", `Version {{% param "nothing" %}} here.`, "Version  here."},
		{"shortcode over lines", "{{< figure\n  src=\"a.png\"\n  alt=\"A map\" >}}\nText.", "\nText."},
		{"titled alert", "{{% alert\n  title=\"Careful\" %}}\nHot.\n{{% /alert %}}", "\nCareful\n\nHot.\n"},
		{"highlight is code", "{{< highlight go >}}\nfunc f() {\n\treturn\n}\n{{< /highlight >}}", "```go\nfunc f() {\n\treturn\n}\n```"},
		{"tab with a language is code", "{{< tabpane >}}\n{{< tab header=\"a.toml\" lang=\"toml\" >}}\n[x]\n  y = 1\n{{< /tab >}}\n{{< /tabpane >}}",
			"\n\na.toml\n\n```toml\n[x]\n  y = 1\n```\n"},
		{"text tab stays text", "{{< tabpane text=true >}}\n{{% tab header=\"Linux\" %}}\nUse the *package*.\n{{% /tab %}}\n{{< /tabpane >}}",
			"\n\nLinux\n\nUse the *package*.\n\n"},
		{"code blocks show params and escapes as the site does", "```sh\ngo get example.org/x@{{% param \"release\" %}}\n{{</* figure src=\"a.png\" */>}}\n{{< figure\n```",
			"```sh\ngo get example.org/x@2.4\n{{< figure src=\"a.png\" >}}\n{{< figure\n```"},
		{"code spans show escapes", "Write `{{%/* param \"x\" */%}}` for a value.", "Write `{{% param \"x\" %}}` for a value."},
		{"opener in a code span joins nothing", "Write `{{<` to open one.\n\n- a list\n- b >}}", "Write `{{<` to open one.\n\n- a list\n- b >}}"},
		{"code shortcode", "{{< code file=\"layouts/home.html\" >}}\n<h1>{{ .Title }}</h1>\n{{< /code >}}",
			"\nlayouts/home.html\n\n```html\n<h1>{{ .Title }}</h1>\n```"},
		{"code shortcode with a language", "{{< code file=\"main\" lang=\"go\" >}}\nfunc main() {}\n{{< /code >}}", "\nmain\n\n```go\nfunc main() {}\n```"},
		{"code-toggle of TOML", "{{< code-toggle file=hugo >}}\n[params]\nversion = '{{% param \"release\" %}}'\n{{< /code-toggle >}}",
			"\nhugo.toml\n\n```toml\n[params]\nversion = '2.4'\n```"},
		{"code-toggle of front matter in YAML", "{{< code-toggle file=content/about.md fm=true >}}\ntitle: About us\n{{< /code-toggle >}}",
			"\ncontent/about.md\n\n```yaml\ntitle: About us\n```"},
		{"file tree", "{{< filetree/container >}}\n  {{< filetree/folder name=\"content\" >}}\n    {{< filetree/file name=\"_index.md\" >}}\n    {{< filetree/folder name=\"docs\" state=\"closed\" >}}\n      {{< filetree/file name=\"guide.md\" >}}\n    {{< /filetree/folder >}}\n  {{< /filetree/folder >}}\n  {{< filetree/file name=\"hugo.toml\" >}}\n{{< /filetree/container >}}\nAfter.",
			"\n```text\ncontent/\n  _index.md\n  docs/\n    guide.md\nhugo.toml\n```\n\nAfter."},
	}
	for _, tt := range tests {
		got := string(stripMDX([]byte(tt.in), Vars{Params: params}))
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestShortcodesOutsideHugo: a book of another layout (no params) keeps
// the braces of its code as written, escapes and all: a page that teaches
// Hugo's syntax quotes it so.
func TestShortcodesOutsideHugo(t *testing.T) {
	in := "```\n{{< param \"release\" >}}\n{{</* figure */>}}\n```\nWrite `{{</* x */>}}`."
	if got := string(stripMDX([]byte(in), Vars{})); got != in {
		t.Errorf("got %q, want it unchanged", got)
	}
}

func TestMySTSubstitutions(t *testing.T) {
	site := map[string]string{"tool": "Quill", "year": "2031"}
	tests := []struct {
		name, in, want string
	}{
		{"site values", "Written with {{ tool }} in {{year}}.", "Written with Quill in 2031."},
		{"front matter wins", "---\nmyst:\n  substitutions:\n    tool: Nib\n---\nUse {{ tool }}.", "Use Nib."},
		{"front matter of its own", "---\nsubstitutions:\n  mood: calm\n---\nStay {{ mood }}.", "Stay calm."},
		{"unknown stays", "Keep {{ other }}.", "Keep {{ other }}."},
		{"code keeps its braces", "```python\nf\"{{ tool }}\"\n```\n`{{ tool }}` or {{ tool }}", "```python\nf\"{{ tool }}\"\n```\n`{{ tool }}` or Quill"},
		{"a directive's text is substituted", "```{note}\nBy {{ tool }}.\n```", "\nBy Quill.\n"},
	}
	for _, tt := range tests {
		got := strings.TrimSpace(string(ReadWith([]byte(tt.in), Vars{Substitutions: site}).Body))
		if got != strings.TrimSpace(tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, strings.TrimSpace(tt.want))
		}
	}
}
