package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/report"
)

// writeBook writes the files of a book (path → text) under dir.
func writeBook(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, text := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// gearsBook is a Docusaurus site's docs folder: the site's config, above
// it, names the course "Gears and Drives".
func gearsBook(t *testing.T) string {
	site := filepath.Join(t.TempDir(), "gears-site")
	writeBook(t, site, map[string]string{
		"docusaurus.config.ts": `import type {Config} from '@docusaurus/types';

const config: Config = {
  title: 'Gears and Drives',
  tagline: 'How motors turn wheels',
  url: 'https://gears.example.org',
  baseUrl: '/',
  themeConfig: {navbar: {title: 'Gears'}},
};

export default config;
`,
		"docs/intro.md": "---\ntitle: Introduction\n---\n\n# Introduction\n\nThis book explains how a motor's turning reaches a robot's wheels through gears and belts.\n",
		"docs/gears.md": `# Gear ratios

## What a gear ratio is

A gear ratio is the number of teeth on the driven gear divided by the number of teeth on the driving gear. A ratio of three to one turns the output shaft once for every three turns of the motor, and it triples the torque at the output shaft.

## Backlash

Backlash is the small gap between the meshing teeth of two gears. When the motor reverses, the output shaft stays still until the gap closes, which makes a joint wobble around its target position.
`,
	})
	return filepath.Join(site, "docs")
}

// jupyterBookBeside is a Jupyter Book titled "Soil Moisture Sensing" in
// the folder of the Docusaurus site whose docs folder is docs: the site's
// config is not the book's.
func jupyterBookBeside(t *testing.T, docs string) string {
	jb := filepath.Join(filepath.Dir(docs), "jb")
	writeBook(t, jb, map[string]string{
		"_config.yml": "title: Soil Moisture Sensing\n",
		"_toc.yml":    "format: jb-book\nroot: intro\n",
		"intro.md":    "# Soil moisture\n\nA capacitive probe reads how much water the soil holds from the charge it stores.\n",
	})
	return jb
}

// fieldBook is a folder without a site config: its intro page names the
// course "Field Sensing".
func fieldBook(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "field-sensing-book")
	writeBook(t, dir, map[string]string{
		"intro.md": "---\ntitle: Welcome\n---\n\n# Welcome to Field Sensing\n\nThis book is about the sensors a farm robot carries into a field.\n",
		"soil.md": `# Soil moisture

## Capacitive probes

A capacitive soil moisture probe measures the dielectric permittivity of the soil around its electrodes. Wet soil has a much higher permittivity than dry soil, so the probe's reading rises with the water content of the soil.

## Calibration

Each soil type needs its own calibration curve: the probe is read in a dry sample and in a saturated sample of the same soil, and readings in between are scaled linearly.
`,
	})
	return dir
}

const (
	gearsQuestion = "What is a gear ratio?"
	soilQuestion  = "What does a capacitive soil moisture probe measure?"
)

// fileState is what a file looks like: size, time and content.
type fileState struct {
	size    int64
	modTime string
	sum     string
}

// snapshotTree records every file under dir.
func snapshotTree(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fileState{info.Size(), info.ModTime().String(), hex.EncodeToString(sum[:])}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffTrees(before, after map[string]fileState) []string {
	var out []string
	for p, b := range before {
		if a, ok := after[p]; !ok {
			out = append(out, p+" removed")
		} else if a != b {
			out = append(out, fmt.Sprintf("%s changed: %+v -> %+v", p, b, a))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, p+" created")
		}
	}
	return out
}

// runCmd runs the command line in process, as main does.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Two books served from one data directory at once, each by a server
// process of its own, each answer from their own book; `report` run
// beside them reads the book it reports on from the data (never the
// sample, never ingesting) and changes no file of either.
func TestTwoBooksOneDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes")
	}
	t.Setenv("DATABASE_URL", "") // the servers' SQLite histories, not CI's Postgres
	data := filepath.Join(t.TempDir(), "data")
	gears, field := gearsBook(t), fieldBook(t)
	serve := func(book string) string {
		_, base := startServer(t, "", "--docs", book, "--data", data, "--addr", "127.0.0.1:0", "--rate-limit", "0", "--refusal-log", os.DevNull)
		return base
	}
	bases := map[string]string{gears: serve(gears), field: serve(field)}
	ask := func(book, q string) rag.ChatResponse {
		t.Helper()
		resp, body := postJSON(t, bases[book]+"/api/chat", map[string]string{"question": q})
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, body)
		}
		return decodeChat(t, body)
	}
	for _, tt := range []struct {
		book, question, page, word string
	}{
		{gears, gearsQuestion, "gears", "teeth"},
		{field, soilQuestion, "soil", "permittivity"},
	} {
		r := ask(tt.book, tt.question)
		if r.WasRefusal || len(r.Sources) == 0 || r.Sources[0].Path != tt.page || !strings.Contains(r.Answer, tt.word) {
			t.Errorf("the server of %s answered %q with %q from %+v; want its own page %s", filepath.Base(tt.book), tt.question, r.Answer, r.Sources, tt.page)
		}
	}
	for _, tt := range []struct{ book, question string }{{gears, soilQuestion}, {field, gearsQuestion}} {
		if r := ask(tt.book, tt.question); !r.WasRefusal {
			t.Errorf("the server of %s answered the other book's question %q: %q", filepath.Base(tt.book), tt.question, r.Answer)
		}
	}
	books, err := datadir.Books(data)
	if err != nil || len(books) != 2 {
		t.Fatalf("the data directory holds %v (%v), want both books side by side", books, err)
	}

	before := snapshotTree(t, data)
	for _, tt := range []struct {
		name   string
		args   []string
		course string
		page   string // a chapter of the book, never quoted
	}{
		{"by --docs", []string{"--docs", gears}, "Gears and Drives", "intro"},
		{"by --book", []string{"--book", datadir.Key(field)}, "Field Sensing", "intro"},
		{"by a folder name's start", []string{"--book", "gears-site"}, "Gears and Drives", "intro"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, append([]string{"report", "--data", data, "--since", "1d"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("report: exit %d: %s", code, errOut)
			}
			if first, _, _ := strings.Cut(out, "\n"); first != "Course report: "+tt.course {
				t.Errorf("report title line %q, want the course %q", first, tt.course)
			}
			if !strings.Contains(out, "2 questions: 1 answered, 1 refused") {
				t.Errorf("report does not count its own book's two questions:\n%s", out)
			}
			code, out, errOut = runCmd(t, append([]string{"report", "--data", data, "--since", "1d", "--json"}, tt.args...)...)
			var r report.Report
			if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
				t.Fatalf("report --json: exit %d, %v: %s", code, err, errOut)
			}
			if len(r.UnquotedChapters) != 1 || r.UnquotedChapters[0].Path != tt.page {
				t.Errorf("chapters never quoted %+v, want only its own book's %s", r.UnquotedChapters, tt.page)
			}
		})
	}
	// Without a choice, report names the books to choose from.
	code, _, errOut := runCmd(t, "report", "--data", data)
	if code != 1 || !strings.Contains(errOut, "holds 2 books; choose one with --book NAME or --docs FOLDER") || !strings.Contains(errOut, datadir.Key(gears)) {
		t.Errorf("report without a choice: exit %d, %s", code, errOut)
	}
	if d := diffTrees(before, snapshotTree(t, data)); len(d) > 0 {
		t.Errorf("report changed the data directory:\n%s", strings.Join(d, "\n"))
	}
	// The servers still answer from their own books.
	if r := ask(gears, gearsQuestion); r.WasRefusal {
		t.Errorf("after the report the gears server refuses: %q", r.Answer)
	}
}

// report takes its book from the data directory: with one book there, it
// is that book, not the built-in sample; with none, it says so and
// creates nothing.
func TestReportReadsTheBookOfTheData(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	data := filepath.Join(t.TempDir(), "data")
	code, _, errOut := runCmd(t, "report", "--data", data)
	if code != 1 || !strings.Contains(errOut, "holds no book's index yet") {
		t.Errorf("report on an empty data dir: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(data); err == nil {
		t.Errorf("report on a missing data dir created it")
	}
	field := fieldBook(t)
	if code, _, errOut := runCmd(t, "ingest", "--docs", field, "--data", data); code != 0 {
		t.Fatalf("ingest: %s", errOut)
	}
	before := snapshotTree(t, data)
	code, out, errOut := runCmd(t, "report", "--data", data, "--json")
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("report: exit %d, %v: %s", code, err, errOut)
	}
	var paths []string
	for _, c := range r.UnquotedChapters {
		paths = append(paths, c.Path)
	}
	if got := strings.Join(paths, ","); got != "intro,soil" {
		t.Errorf("report lists the chapters %s, want the data's book's (intro,soil)", got)
	}
	if d := diffTrees(before, snapshotTree(t, data)); len(d) > 0 {
		t.Errorf("report changed the data directory (it holds no history yet):\n%s", strings.Join(d, "\n"))
	}
	// ask on that index reads it as it is and writes no index.
	code, out, errOut = runCmd(t, "ask", "--data", data, soilQuestion)
	if code != 0 || !strings.Contains(out, "permittivity") {
		t.Errorf("ask --data: exit %d: %s %s", code, out, errOut)
	}
	if d := diffTrees(before, snapshotTree(t, data)); len(d) > 0 {
		t.Errorf("ask on the index changed the data directory:\n%s", strings.Join(d, "\n"))
	}
}

// The course is named after its book (its Docusaurus site's title, else
// its root page's, else its folder's), or by --course-name and its
// environment variable; the reader's page, the widget, the refusal
// messages and the report all say it.
func TestCourseName(t *testing.T) {
	plain := filepath.Join(t.TempDir(), "signal_processing-notes")
	writeBook(t, plain, map[string]string{"filters.md": "# Filters\n\nA low-pass filter keeps the slow changes of a signal and removes the fast ones.\n"})
	tests := []struct {
		name string
		docs string
		env  string
		flag string
		want string
	}{
		{"site config above the docs", gearsBook(t), "", "", "Gears and Drives"},
		{"a Jupyter Book beside a Docusaurus site", jupyterBookBeside(t, gearsBook(t)), "", "", "Soil Moisture Sensing"},
		{"root page title", fieldBook(t), "", "", "Field Sensing"},
		{"folder name", plain, "", "", "Signal processing notes"},
		{"the sample's own site config", "", "", "", "Physical AI & Humanoid Robotics"},
		{"the flag", gearsBook(t), "", "Mechanisms 101", "Mechanisms 101"},
		{"the environment", fieldBook(t), "Agronomy <Lab> & Field Work", "", "Agronomy <Lab> & Field Work"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("TEXTBOOK_RAG_COURSE_NAME", tt.env)
			t.Setenv("DATABASE_URL", "")
			cfg := DefaultConfig()
			f := newFlags("serve", &cfg, io.Discard)
			f.book()
			f.answering()
			args := []string{"--docs", tt.docs}
			if tt.flag != "" {
				args = append(args, "--course-name", tt.flag)
			}
			if err := f.parse(args); err != nil {
				t.Fatal(err)
			}
			base, m := startService(t, func(c *Config) {
				c.Docs, c.Tutor.CourseName, c.AdminToken = cfg.Docs, cfg.Tutor.CourseName, "tok"
			})
			if m.Course != tt.want {
				t.Fatalf("course %q, want %q", m.Course, tt.want)
			}
			page := get(t, base+"/", nil)
			if want := " — " + html.EscapeString(tt.want) + "</title>"; !strings.Contains(page, want) {
				t.Errorf("the page's title lacks %q", want)
			}
			quoted, _ := json.Marshal(tt.want)
			if js := get(t, base+"/widget.js", nil); !strings.Contains(js, "var COURSE = "+string(quoted)+";") {
				t.Errorf("the widget does not name the course %s", quoted)
			}
			_, body := postJSON(t, base+"/api/chat", map[string]string{"question": "What is a good recipe for banana bread?"})
			if r := decodeChat(t, body); !strings.Contains(r.Answer, "outside the scope of the "+tt.want+" course.") {
				t.Errorf("the refusal does not name the course: %q", r.Answer)
			}
			rep := get(t, base+"/admin/report", map[string]string{"Authorization": "Bearer tok"})
			if want := "Course report · " + html.EscapeString(tt.want); !strings.Contains(rep, want) {
				t.Errorf("the report page lacks %q", want)
			}
			if tt.flag == "" && tt.env == "" {
				return
			}
			// report takes the override too; without it, the book's name.
			code, out, errOut := runCmd(t, "report", "--data", m.Config.Data, "--course-name", tt.want)
			if first, _, _ := strings.Cut(out, "\n"); code != 0 || first != "Course report: "+tt.want {
				t.Errorf("report --course-name: exit %d, %q %s", code, first, errOut)
			}
		})
	}
	// The sample's out-of-scope refusal names its course as the spec does.
	base, _ := startService(t, nil)
	_, body := postJSON(t, base+"/api/chat", map[string]string{"question": "Can I publish ROS 2 topics from a Webots simulation?"})
	if r := decodeChat(t, body); !strings.Contains(r.Answer, "The Physical AI & Humanoid Robotics textbook covers:") {
		t.Errorf("the sample's out-of-scope refusal: %q", r.Answer)
	}
}

// get fetches url with headers and returns the body.
func get(t *testing.T, url string, headers map[string]string) string {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
