package markdown

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/sample"
)

const residueTable = "| Sensor | Rate |\n|---|---|\n| IMU | 200 Hz |\n| Camera | 30 Hz |"

const residueCode = "```python\nimport rclpy\n<not a tag>\n---\n:::note\n```"

// residuePage has what Docusaurus books put around their text.
var residuePage = `---
id: residue
title: Residue
---
import Tabs from '@theme/Tabs';
import {
  Quiz,
  Question,
} from '@site/src/components/Quiz';
export const meta = {
  level: 'beginner',
};

# Residue

<div className="intro-card" style={{padding: 4}}>

A **node** is a process that computes. &lt;node_name&gt; names it.

</div>

---

## Diagram

<figure>

` + "```mermaid\ngraph TD\n  A-->B\n```" + `

<figcaption className="caption">Figure 1: Nodes talk over topics.</figcaption>
</figure>

Rates:

` + residueTable + `

***

::::tip[Remember]
Topics are asynchronous.<br/>Services answer.
::::

<details>
<summary>Reveal Answer</summary>

The answer is B.

</details>

` + residueCode + `

<Quiz
  title="Check"
  questions={[
    {q: "What is a node?", options: ["a", "b"]},
  ]}
/>

<Quiz id="q2">
- What is a topic?
- What is a service?
</Quiz>

The end of the section. <!-- a note for authors -->
`

// residue matches what must not reach a chunk outside code: HTML and JSX
// elements, MDX imports and exports, front matter, diagram source,
// admonition fences, thematic breaks, MDX comments, entities.
var residue = []struct {
	name string
	re   *regexp.Regexp
}{
	{"HTML element", regexp.MustCompile(`(?i)</?(a|abbr|b|br|button|center|details|div|em|figcaption|figure|font|h[1-6]|hr|i|iframe|img|input|kbd|li|ol|p|picture|pre|script|section|small|source|span|strong|style|sub|summary|sup|svg|table|td|th|tr|u|ul|video)(\s[^<>]*)?/?>`)},
	{"JSX component", regexp.MustCompile(`</?[A-Z][\w.]*(\s[^<>]*)?/?>|^\s*/?>\s*$`)},
	{"JSX attribute", regexp.MustCompile(`\b(className|style)=`)},
	{"import/export", regexp.MustCompile(`(?m)^\s*(import\s.*\sfrom\s|import\s*\{|\}\s*from\s+['"]|import\s+['"]|export\s+(const|default|function)\b)`)},
	{"front matter", regexp.MustCompile(`(?m)^(sidebar_position|sidebar_label|slug|id|title):\s`)},
	{"mermaid", regexp.MustCompile("(?m)^```\\s*mermaid|^\\s*(graph|flowchart)\\s+(TD|TB|LR|RL|BT)\\b|^\\s*sequenceDiagram\\s*$")},
	{"admonition fence", regexp.MustCompile(`(?m)^\s*:::`)},
	{"thematic break", regexp.MustCompile(`(?m)^ {0,3}((-\s*){3,}|(\*\s*){3,}|(_\s*){3,})$`)},
	{"MDX comment", regexp.MustCompile(`\{/\*|<!--`)},
	{"entity", regexp.MustCompile(`&(lt|gt|amp|quot|nbsp|#\d+);`)},
}

var codeSpan = regexp.MustCompile("`[^`\n]+`")

// withoutCode drops fenced code blocks (but diagram source) and code
// spans from a chunk's text.
func withoutCode(s string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) && !strings.Contains(t, "mermaid"):
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		default:
			out = append(out, line)
		}
	}
	return codeSpan.ReplaceAllString(strings.Join(out, "\n"), "")
}

// checkClean reports residue outside the code of the chunks' text.
func checkClean(t *testing.T, book string, chunks []rag.Chunk) {
	t.Helper()
	found := 0
	for _, c := range chunks {
		_, body, _ := strings.Cut(c.Text, "]\n\n")
		prose := withoutCode(body)
		for _, r := range residue {
			if m := r.re.FindStringIndex(prose); m != nil && found < 20 {
				found++
				t.Errorf("%s: %s › %s: %s %q", book, c.ChapterPath, c.SectionHeading, r.name, prose[max(0, m[0]-40):min(len(prose), m[1]+40)])
			}
		}
	}
}

func TestCleanText(t *testing.T) {
	_, chunks := load(t, fstest.MapFS{"m/residue.mdx": {Data: []byte(residuePage)}}, DefaultOptions())
	checkClean(t, "residue page", chunks)
	var all strings.Builder
	for _, c := range chunks {
		all.WriteString(c.Text + "\n")
	}
	text := all.String()
	for _, kept := range []string{
		"A **node** is a process that computes. <node_name> names it.",
		"Figure 1: Nodes talk over topics.",
		residueTable, residueCode,
		"Remember", "Topics are asynchronous. Services answer.",
		"Reveal Answer", "The answer is B.",
		"The end of the section.",
	} {
		if !strings.Contains(text, kept) {
			t.Errorf("chunks lost %q:\n%s", kept, text)
		}
	}
	for _, gone := range []string{"What is a node?", "What is a topic?", "A-->B", "level: 'beginner'"} {
		if strings.Contains(text, gone) {
			t.Errorf("chunks still hold %q", gone)
		}
	}
}

// TestBooksAreClean walks the bundled sample and the two shared books.
func TestBooksAreClean(t *testing.T) {
	check := func(name string, load func() ([]rag.Chunk, error)) {
		t.Run(name, func(t *testing.T) {
			chunks, err := load()
			if err != nil {
				t.Fatal(err)
			}
			checkClean(t, name, chunks)
		})
	}
	check("sample", func() ([]rag.Chunk, error) {
		_, chunks, err := Load(t.Context(), sample.Docs(), DefaultOptions())
		return chunks, err
	})
	corpus := filepath.Dir(sharedBook)
	for _, name := range []string{"physical-ai-textbook", "humanoid-robotics-textbook"} {
		dir := filepath.Join(corpus, name)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("shared book %s not present (%v): skipped", name, err)
			continue
		}
		check(name, func() ([]rag.Chunk, error) {
			_, chunks, err := Load(t.Context(), os.DirFS(dir), DefaultOptions())
			return chunks, err
		})
	}
}
