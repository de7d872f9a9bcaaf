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
		{"code blocks keep shortcodes", "```\n{{< param \"release\" >}}\n{{< figure\n```", "```\n{{< param \"release\" >}}\n{{< figure\n```"},
		{"opener in a code span joins nothing", "Write `{{<` to open one.\n\n- a list\n- b >}}", "Write `{{<` to open one.\n\n- a list\n- b >}}"},
	}
	for _, tt := range tests {
		got := string(stripMDX([]byte(tt.in), Vars{Params: params}))
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
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
