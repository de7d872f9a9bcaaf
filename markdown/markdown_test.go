package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/internal/sharedtest"
	"github.com/textbook-rag/rag/markdown/page"
)

var update = flag.Bool("update", false, "rewrite golden files")

// A small book written for these tests.
func testBook() fstest.MapFS {
	return fstest.MapFS{
		"intro.md":               {Data: []byte("---\nid: welcome\ntitle: \"Robots 101\"\n---\n\n# Ignored Heading\n\nThis short book teaches robots. It has two modules and a glossary of terms that a student can use while reading the chapters.\n")},
		"basics/_category_.json": {Data: []byte(`{"label": "Robot Basics", "position": 2}`)},
		"basics/index.md":        {Data: []byte("---\ntitle: Basics Overview\n---\n\n# Basics Overview\n\nWhat the basics module covers, in one friendly paragraph that is long enough to stand alone as a chunk of the book.\n")},
		"basics/sensors.mdx": {Data: []byte(`---
title: Sensors
sidebar_position: 2
---
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

# Sensors

Sensors let a robot perceive the world and itself.

## Table of Contents

- [IMU](#imu)

## Inertial Units {#imu}

An **IMU** measures acceleration and angular velocity.

<Tabs>
<TabItem value="py" label="Python">

Read the IMU at 100 Hz and integrate carefully.

</TabItem>
</Tabs>

### Drift

A small gyro bias makes the heading drift without bound.

## Encoders

An incremental encoder loses its count at power-off.

:::tip Homing
Home the joint after every power-up.
:::

## Review Questions

1. What does an IMU measure?

### Hard one

2. Why does heading drift?

## What's Next

Go on to actuators.
`)},
		"motion/actuators.md": {Data: []byte("# Actuators\n\nMotors move joints.\n\n## Motors\n\nA motor turns electricity into motion.\n\n```python\nmotor.set_speed(1.0)\n\nmotor.stop()\n```\n\n## Motors\n\nA second section with the same title gets its own anchor.\n")},
		"motion/_hidden.md":   {Data: []byte("# Hidden\n\nNever read.\n")},
		"motion/notes.txt":    {Data: []byte("not a page")},
	}
}

func load(t *testing.T, fsys fstest.MapFS, o Options) (rag.Book, []rag.Chunk) {
	t.Helper()
	book, chunks, err := Load(t.Context(), fsys, o)
	if err != nil {
		t.Fatal(err)
	}
	return book, chunks
}

func TestLoadBook(t *testing.T) {
	book, chunks := load(t, testBook(), DefaultOptions())
	if book.Title != "Robots 101" {
		t.Errorf("book title %q", book.Title)
	}
	var mods []string
	for _, m := range book.Modules {
		mods = append(mods, m.ID+"="+m.Title)
	}
	// _category_ label and position; a folder without one is named by its
	// folder and comes after the positioned module.
	if got := strings.Join(mods, ","); got != "basics=Robot Basics,motion=motion" {
		t.Errorf("modules %s", got)
	}
	byPath := map[string][]rag.Chunk{}
	for _, c := range chunks {
		byPath[c.ChapterPath] = append(byPath[c.ChapterPath], c)
	}
	if _, ok := byPath["motion/_hidden"]; ok {
		t.Error("a page starting with _ was read")
	}
	tests := []struct {
		path, moduleID, chapterID, chapterTitle string
	}{
		{"intro", "", "welcome", "Robots 101"},
		{"basics/index", "basics", "basics/index", "Basics Overview"},
		{"basics/sensors", "basics", "basics/sensors", "Sensors"},
		{"motion/actuators", "motion", "motion/actuators", "Actuators"},
	}
	for _, tt := range tests {
		cs := byPath[tt.path]
		if len(cs) == 0 {
			t.Errorf("%s: no chunks", tt.path)
			continue
		}
		c := cs[0]
		if c.ModuleID != tt.moduleID || c.ChapterID != tt.chapterID || c.ChapterTitle != tt.chapterTitle {
			t.Errorf("%s: module %q chapter %q title %q", tt.path, c.ModuleID, c.ChapterID, c.ChapterTitle)
		}
		if !strings.HasPrefix(c.Text, "[Module: ") || !strings.Contains(c.Text, "]\n[Chapter: "+tt.chapterTitle+"]\n[Section: ") {
			t.Errorf("%s: chunk header %q", tt.path, c.Text[:60])
		}
	}
}

func TestLeftOutAndMDX(t *testing.T) {
	_, chunks := load(t, testBook(), DefaultOptions())
	var all strings.Builder
	var heads []string
	for _, c := range chunks {
		all.WriteString(c.Text)
		for _, h := range c.Headings {
			heads = append(heads, h.Text+"#"+h.Anchor)
		}
	}
	text := all.String()
	for _, gone := range []string{":::", "import Tabs", "<TabItem", "</Tabs>", "Table of Contents", "Review Questions", "What does an IMU measure", "Hard one", "What's Next", "Go on to actuators", "sidebar_position"} {
		if strings.Contains(text, gone) {
			t.Errorf("chunks still hold %q", gone)
		}
	}
	for _, kept := range []string{"Read the IMU at 100 Hz", "### Drift", "An incremental encoder", "Homing", "Home the joint after every power-up."} {
		if !strings.Contains(text, kept) {
			t.Errorf("chunks lost %q", kept)
		}
	}
	sort.Strings(heads)
	want := []string{"Drift#drift", "Encoders#encoders", "Inertial Units#imu", "Motors#motors", "Motors#motors-1"}
	for _, w := range want {
		if !contains(heads, w) {
			t.Errorf("heading %s missing from %v", w, heads)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestGolden(t *testing.T) {
	_, chunks := load(t, testBook(), DefaultOptions())
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("=== " + c.ChapterPath + " #" + itoa(c.ChunkIndex) + " section=" + c.SectionHeading + " anchor=" + c.Anchor + "\n")
		b.WriteString(c.Text + "\n")
	}
	golden := filepath.Join("testdata", "book.golden")
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("chunks differ from %s (run with -update and review the diff):\n%s", golden, b.String())
	}
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0)) + string(rune('0'+i)) }

// bigBook has one chapter with a section far over the limit.
func bigBook() fstest.MapFS {
	var b strings.Builder
	b.WriteString("# Big\n\nIntro sentence for the big chapter that is long enough.\n\n## Long Section\n\n")
	for s := 0; s < 6; s++ {
		b.WriteString("### Part " + string(rune('A'+s)) + "\n\n")
		for p := 0; p < 4; p++ {
			b.WriteString(strings.Repeat("Robots sense, think and act in a loop that never stops. ", 8) + "\n\n")
		}
		if s == 2 {
			b.WriteString("```python\n" + strings.Repeat("x = compute(x)\n\n", 40) + "```\n\n")
		}
	}
	b.WriteString("## Tiny\n\nShort.\n\n## Also Tiny\n\nAlso short.\n")
	return fstest.MapFS{"big.md": {Data: []byte(b.String())}}
}

func TestSizesCodeAndOverlap(t *testing.T) {
	o := DefaultOptions()
	_, chunks := load(t, bigBook(), o)
	if len(chunks) < 3 {
		t.Fatalf("a section of several thousand tokens gave %d chunks", len(chunks))
	}
	for i, c := range chunks {
		n := page.CountTokens(c.Text)
		if n > o.MaxTokens {
			t.Errorf("chunk %d has %d tokens", i, n)
		}
		if strings.Count(c.Text, "```")%2 != 0 {
			t.Errorf("chunk %d splits a code block", i)
		}
		if c.ChunkIndex != i {
			t.Errorf("chunk %d has index %d", i, c.ChunkIndex)
		}
		if i > 0 {
			prevBody := chunks[i-1].Text
			// The next chunk starts with the end of the previous one.
			body := strings.SplitN(c.Text, "\n\n", 2)[1]
			lines := strings.Split(body, "\n\n")
			first := lines[0]
			if strings.HasPrefix(first, "#") && len(lines) > 1 {
				first = lines[1]
			}
			if !strings.Contains(prevBody, first) && !strings.HasPrefix(first, "```") {
				t.Errorf("chunk %d does not start with the end of chunk %d: %q", i, i-1, first)
			}
		}
	}
	last := chunks[len(chunks)-1]
	// The two tiny sections joined a neighbour instead of standing alone.
	if !strings.Contains(last.Text, "Short.") || !strings.Contains(last.Text, "Also short.") {
		t.Errorf("small sections were not merged: %q", last.Text)
	}
}

func TestStableIDsAndHash(t *testing.T) {
	b1, c1 := load(t, testBook(), DefaultOptions())
	b2, c2 := load(t, testBook(), DefaultOptions())
	if b1.Hash != b2.Hash || len(c1) != len(c2) {
		t.Fatal("two loads of one book differ")
	}
	seen := map[string]bool{}
	for i := range c1 {
		if c1[i].ID != c2[i].ID {
			t.Errorf("chunk %d id changed between loads", i)
		}
		if seen[c1[i].ID] {
			t.Errorf("duplicate id %s", c1[i].ID)
		}
		seen[c1[i].ID] = true
	}
	changed := testBook()
	changed["basics/sensors.mdx"] = &fstest.MapFile{Data: append(changed["basics/sensors.mdx"].Data, []byte("\nOne more line.\n")...)}
	b3, _ := load(t, changed, DefaultOptions())
	if b3.Hash == b1.Hash {
		t.Error("changing a page did not change the book hash")
	}
}

func TestErrors(t *testing.T) {
	if _, _, err := Load(t.Context(), fstest.MapFS{"a.txt": {Data: []byte("x")}}, DefaultOptions()); err == nil {
		t.Error("a book without pages loaded")
	}
	_, _, err := Load(t.Context(), fstest.MapFS{"m/_category_.json": {Data: []byte("{")}, "m/a.md": {Data: []byte("# A\n\ntext")}}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "_category_.json") {
		t.Errorf("broken _category_.json: %v", err)
	}
}

const sharedBook = "../../shared/corpus/physical-ai-textbook"

func TestSharedTextbook(t *testing.T) {
	sharedtest.Require(t, sharedBook)
	book, chunks, err := Load(t.Context(), os.DirFS(sharedBook), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, c := range chunks {
		n := page.CountTokens(c.Text)
		sizes = append(sizes, n)
		if n > 1000 && strings.Count(c.Text, "```") > 2 {
			t.Errorf("%s › %s: %d tokens and more than one code block", c.ChapterPath, c.SectionHeading, n)
		}
	}
	sort.Ints(sizes)
	in := 0
	for _, n := range sizes {
		if n >= 300 && n <= 600 {
			in++
		}
	}
	t.Logf("%d modules, %d chunks; tokens min %d, median %d, max %d; %d%% in 300-600",
		len(book.Modules), len(chunks), sizes[0], sizes[len(sizes)/2], sizes[len(sizes)-1], 100*in/len(sizes))
}

func BenchmarkLoadSharedTextbook(b *testing.B) {
	if _, err := os.Stat(sharedBook); err != nil {
		b.Skip("shared textbook not present")
	}
	fsys := os.DirFS(sharedBook)
	for i := 0; i < b.N; i++ {
		if _, _, err := Load(b.Context(), fsys, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// A section that ends in a list item holding fenced code gives the next
// chunk no overlap from inside the code: a chunk that opened on the
// code's last lines would take their closing fence for an opening one,
// and read the next section's heading as code.
func TestOverlapNeverOpensInsideCode(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Fit\n\n## Train the model\n\n")
	b.WriteString(strings.Repeat("Training turns labelled rows into weights that predict a class. ", 30) + "\n\n")
	b.WriteString("1. Fit it and print the report:\n\n    ```python\n    model.fit(rows, labels)\n    ```\n\n    The report:\n\n    ```output\n")
	for i := 0; i < 12; i++ {
		b.WriteString("    0 1 0 0 1 1 0 1 0 0 0 1 0 1 0 0 1 1 0 1\n")
	}
	b.WriteString("    ```\n\n## Read the errors\n\n")
	b.WriteString(strings.Repeat("A table of errors counts each wrong class against the right one. ", 30) + "\n")
	_, chunks := load(t, fstest.MapFS{"fit.md": {Data: []byte(b.String())}}, DefaultOptions())
	if len(chunks) < 2 {
		t.Fatalf("got %d chunks, want the two sections apart", len(chunks))
	}
	for i, c := range chunks {
		fences := 0
		for _, line := range strings.Split(c.Text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fences++
			}
		}
		if fences%2 != 0 {
			t.Errorf("chunk %d holds %d fence lines, a code block cut open:\n%s", i, fences, c.Text)
		}
		if strings.HasPrefix(strings.TrimSpace(strings.SplitN(strings.SplitN(c.Text, "]\n\n", 2)[1], "\n## ", 2)[0]), "0 1") {
			t.Errorf("chunk %d opens on code output:\n%s", i, c.Text)
		}
	}
}
