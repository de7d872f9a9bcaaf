package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCapCourseName(t *testing.T) {
	long := strings.Repeat("Robots and their gears ", 40)
	tests := []struct{ in, want string }{
		{"Physical AI", "Physical AI"},
		{strings.Repeat("é", maxCourseRunes), strings.Repeat("é", maxCourseRunes)},
		{strings.Repeat("x", 900000), strings.Repeat("x", maxCourseRunes-1) + "…"},
		{long, strings.TrimSpace(long[:strings.LastIndexByte(long[:maxCourseRunes-1], ' ')]) + "…"},
	}
	for _, tt := range tests {
		got := capCourseName(tt.in)
		if got != tt.want {
			t.Errorf("capCourseName(%.30q...) = %q, want %q", tt.in, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > maxCourseRunes {
			t.Errorf("%d runes", n)
		}
	}
}

// A 900,000-character project in conf.py does not become the course's
// name: the name is cut to maxCourseRunes, in the index and in what is
// served.
func TestLongProjectNameIsCapped(t *testing.T) {
	docs := t.TempDir()
	files := map[string]string{
		"conf.py":   "project = \"" + strings.Repeat("Gears ", 150000) + "\"\n",
		"index.md":  "# Start\n\n```{toctree}\nwheels\n```\n",
		"wheels.md": "# Wheels\n\nA wheel turns on an axle.\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := DefaultConfig()
	cfg.Docs, cfg.Data = docs, filepath.Join(t.TempDir(), "data")
	in, err := ingest(t.Context(), cfg, &strings.Builder{}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for where, name := range map[string]string{"index": in.Index.Course, "served": courseName(cfg, in.Index)} {
		if n := utf8.RuneCountInString(name); n > maxCourseRunes || !strings.HasPrefix(name, "Gears Gears") {
			t.Errorf("%s: a name of %d runes (%.40q)", where, n, name)
		}
	}
}
