package answer

import (
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag/markdown"
)

// A selection that names a term of its chapter by the term's last word
// ("the gap" after "the **drift gap**") gets the term's definition; a
// last word that several of the chapter's terms share ("join" of "rolling
// joins" and "equi joins") names none of them, and defines nothing.
func TestExplainDefinesOnlyTermsTheSelectionUses(t *testing.T) {
	book := fstest.MapFS{
		"tables.md": {Data: []byte(`# Tables

## Keys

A key is a column whose values name each row once. A join combines two tables on a shared key; the join keeps the rows whose keys match.

## Kinds of join

- **Rolling joins**: match each row to the nearest earlier key, as prices to trades
- **Equi joins**: match rows whose keys are equal, as orders to customers
`)},
		"clocks.md": {Data: []byte(`# Clocks

## Drift

The **drift gap** is the time two clocks disagree by after a day apart.

## Syncing

A server narrows the gap by sending its time to the others every minute.
`)},
		"other.md": {Data: []byte("# Other\n\n## Soil\n\nSand drains fast and clay holds water.\n\n## Light\n\nA north window gives the least light.\n")},
	}
	_, chunks, err := markdown.Load(t.Context(), book, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	ans := newAnswerer(chunks)
	tests := []struct {
		selected string
		want     []string
	}{
		{"A key is a column whose values name each row once. A join combines two tables on a shared key; the join keeps the rows whose keys match.", nil},
		{"A server narrows the gap by sending its time to the others every minute.", []string{"drift gap"}},
	}
	for _, tt := range tests {
		exp, ok := ans.ExplainSelection(ans.Read("What does this mean?"), tt.selected)
		if !ok {
			t.Fatal("not taken as pointing at the selection")
		}
		var got []string
		for _, d := range exp.Definitions {
			got = append(got, d.Term)
		}
		if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] {
			t.Errorf("%q: defines %q, want %q", tt.selected, got, tt.want)
		}
	}
}
