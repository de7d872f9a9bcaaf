package markdown

import "testing"

func TestStripMDX(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"imports and exports", "import Tabs from '@theme/Tabs';\nexport const x = 1;\nText", "Text"},
		{"component tags keep their text", "<Tabs>\n<TabItem value=\"py\">\n\nHello\n\n</TabItem>\n</Tabs>", "\n\n\nHello\n\n\n"},
		{"inline component", "Say <Highlight>this</Highlight> now", "Say this now"},
		{"code span untouched", "Use `<Tabs>` here", "Use `<Tabs>` here"},
		{"comment", "a {/* hidden */} b", "a  b"},
		{"admonition", ":::tip Homing\nHome it.\n:::", "\nHoming\n\nHome it.\n"},
		{"fenced code untouched", "```js\nimport x from 'y';\n:::\n```", "```js\nimport x from 'y';\n:::\n```"},
		{"html kept", "a <br/> b <sub>2</sub>", "a <br/> b <sub>2</sub>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(StripMDX([]byte(tt.in))); got != tt.want {
				t.Errorf("StripMDX(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
