package markdown

import (
	"os"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// The fixture books under testdata are written for these tests in the
// layouts of other Markdown tools: docbuilder as Hugging Face's
// doc-builder reads a course (a _toctree.yml, [[anchors]], components and
// framework blocks), mdbook as mdBook reads a book (src/SUMMARY.md,
// {{#include}} lines).

func loadDir(t *testing.T, dir string, o Options) (rag.Book, []rag.Chunk) {
	t.Helper()
	book, chunks, err := Load(t.Context(), os.DirFS(dir), o)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, chunks)
	return book, chunks
}

func allText(chunks []rag.Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func TestDocBuilderHeadingsAndComponents(t *testing.T) {
	_, chunks := loadDir(t, "testdata/docbuilder", DefaultOptions())
	anchors := map[string]string{} // heading -> anchor
	for _, c := range chunks {
		for _, s := range append([]string{c.SectionHeading, c.ChapterTitle}, headingTexts(c.Headings)...) {
			if strings.Contains(s, "[[") {
				t.Errorf("%s: heading or title %q keeps its doc-builder anchor", c.ChapterPath, s)
			}
		}
		for _, h := range c.Headings {
			anchors[h.Text] = h.Anchor
		}
	}
	for heading, want := range map[string]string{
		"Attention masks":                  "attention-masks",
		"Queries, keys and values":         "queries-keys-and-values",
		"Working in a notebook":            "working-in-a-notebook",
		"Softmax over each row":            "softmax-over-each-row",
		"Longer sequences":                 "longer-sequences",
		"The matrix product":               "the-matrix-product",
		"Working in a virtual environment": "working-in-a-virtual-environment",
	} {
		if got, ok := anchors[heading]; !ok || got != want {
			t.Errorf("section %q: anchor %q (found %v), want %q", heading, got, ok, want)
		}
	}
	text := allText(chunks)
	for _, bad := range []string{"{#if", "{:else}", "{/if}", "<Tip", "</Tip>", "Youtube", "CourseFloatingBanner", "FrameworkSwitchCourse", "notebooks=", "[[queries", "tf.matmul", "tf.nn.softmax", "[!TIP]", "TensorFlow tensors"} {
		if strings.Contains(text, bad) {
			t.Errorf("chunks hold %q", bad)
		}
	}
	for _, want := range []string{
		"The values are what gets mixed",                // <Tip> keeps its text
		"Scores grow with the size of the vectors",      // <Tip warning={true}> too
		"scores = queries @ keys.transpose(-2, -1)",     // the default framework's code
		"torch.softmax(scores, dim=-1)",                 // default in an {:else} branch
		"The tokenizer returns PyTorch tensors",         // in a GitHub alert
		"# Attention masks[[attention-masks]]\nbatch =", // code is left as it is
	} {
		if !strings.Contains(text, want) {
			t.Errorf("chunks lack %q", want)
		}
	}
}

func headingTexts(hs []rag.Heading) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Text)
	}
	return out
}
