package page

import (
	"strings"
	"testing"
)

// A fence that shows Markdown (a ````md block of MyST examples) comes out
// of the chunker whole: its inner fences and directives stay as written,
// line by line, inside a list item and a tab too.
func TestNestedFencesIntact(t *testing.T) {
	tests := []struct{ name, page, want string }{
		{"md fence", "Write a note so:\n\n````md\n```{note}\nA note.\n```\n````\n\nIt renders as a box.",
			"````md\n```{note}\nA note.\n```\n````"},
		{"in a list item", "- Item:\n\n  ````md\n  ```{tip}\n  Tip.\n  ```\n  ````\n\nAfter.",
			"  ````md\n  ```{tip}\n  Tip.\n  ```\n  ````"},
		{"in a tab", "::::{tab-item} MyST\n````md\n:::{note}\nA.\n:::\n````\n::::",
			"````md\n:::{note}\nA.\n:::\n````"},
		{"code block of fences", "`````{code-block} md\n````{note}\n```python\nx=1\n```\n````\n`````",
			"`````md\n````{note}\n```python\nx=1\n```\n````\n`````"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Read([]byte("# Notes\n\n" + tc.page + "\n"))
			chunks := p.Chunks(t.Context(), Place{Path: "notes", ChapterTitle: "Notes"}, Sizes{Target: 450, Max: 1000, Min: 100, Overlap: 50})
			var text strings.Builder
			for _, c := range chunks {
				text.WriteString(c.Text)
			}
			if !strings.Contains(text.String(), tc.want) {
				t.Errorf("chunks %q\nwant them to hold %q", text.String(), tc.want)
			}
		})
	}
}
