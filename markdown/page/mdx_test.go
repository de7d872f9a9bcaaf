package page

import "testing"

func TestStripMDX(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"imports and exports", "import Tabs from '@theme/Tabs';\nexport const x = 1;\nText", "Text"},
		{"component tags keep their text", "<Tabs>\n<TabItem value=\"py\">\n\nHello\n\n</TabItem>\n</Tabs>", "\n\n\nHello\n\n\n"},
		{"inline component", "Say <Highlight>this</Highlight> now", "Say this now"},
		{"code span untouched", "Use `<Tabs>` here", "Use `<Tabs>` here"},
		{"comment", "a {/* hidden */} b", "a  b"},
		{"admonition", ":::tip Homing\nHome it.\n:::", "\nHoming\n\nHome it.\n"},
		{"pandoc div with a bare class", "::: callout-note\nHome it.\n:::", "\nHome it.\n"},
		{"quarto callout", "::: {.callout-note icon=false}\nHome it.\n:::", "\nHome it.\n"},
		{"container with a quoted title", "::: warning \"Hot plate\"\nHome it.\n:::", "\nHot plate\n\nHome it.\n"},
		{"mkdocstrings module alone", "::: robot_arm\n    options:\n      show_root: true\n\nAfter.", "After."},
		{"fenced code untouched", "```js\nimport x from 'y';\n:::\n```", "```js\nimport x from 'y';\n:::\n```"},
		{"html kept", "a <br/> b <sub>2</sub>", "a <br/> b <sub>2</sub>"},
		{"doc-builder anchor becomes an id", "## Attention masks[[attention-masks]]", "## Attention masks {#attention-masks}"},
		{"doc-builder anchor after spaces", "### Why? [[why-]]  ", "### Why? {#why-}"},
		{"doc-builder anchor an id cannot hold", "## Odd[[a'b]]", "## Odd"},
		{"brackets in text stay", "Lists [[1, 2]] of ids\n## a [[b]] c", "Lists [[1, 2]] of ids\n## a [[b]] c"},
		{"anchor in code stays", "```md\n## A[[a]]\n```", "```md\n## A[[a]]\n```"},
		{"default framework kept", "{#if fw === 'pt'}\nPyTorch\n{:else}\nKeras\n{/if}\nBoth", "PyTorch\nBoth"},
		{"default framework second", "{#if fw === 'tf'}\nKeras\n{:else}\nPyTorch\n{/if}", "PyTorch"},
		{"dropped branch's code", "{#if fw === 'tf'}\n```py\n{/if}\n```\n{/if}\nafter", "after"},
		{"unknown condition keeps every branch", "{#if lang === 'en'}\nA\n{:else}\nB\n{/if}", "A\nB"},
		{"unclosed block", "{#if fw === 'tf'}\nKeras", ""},
		{"framework block in a quote", "> [!TIP]\n> {#if fw === 'pt'}\n> Trainer\n> {:else}\n> Keras\n> {/if}", ">\n> Trainer"},
		{"alert marker", ">[!warning]\n> Careful.\n\n> [!TIP] not alone", ">\n> Careful.\n\n> [!TIP] not alone"},
		{"heading anchor as a comment", "## Custom Hooks {/*custom-hooks*/}\nText {/*x*/} here", "## Custom Hooks {#custom-hooks}\nText  here"},
		{"MkDocs admonition", "!!! note \"Keep\"\n    Kept text.", "\nKeep\n\nKept text."},
		{"MyST directive", "```{note}\nA note.\n```", "\nA note.\n"},
		{"stray markers are text", "{:else}\n{/if}", "{:else}\n{/if}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(StripMDX([]byte(tt.in))); got != tt.want {
				t.Errorf("StripMDX(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
