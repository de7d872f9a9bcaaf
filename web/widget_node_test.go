package web_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestPlaceSource runs the widget's placeSource under Node: a list item
// that names a section by its quoted heading ("“Topics” (Nodes and
// Topics)", as an explanation lists the other sections that discuss a
// selection) is matched to the source of that heading, each source once;
// other items are matched to none. linkPlaces makes the matched items
// links (browser scenarios cover the DOM).
func TestPlaceSource(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the widget's placeSource is not run")
	}
	src, err := os.ReadFile("static/widget.js")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)  var PLACE = .*?\n  function placeSource\(.*?\n  }\n`).Find(src)
	if fn == nil {
		t.Fatal("widget.js has no PLACE and placeSource")
	}
	script := string(fn) + `
var sources = [
  {chapter_id: "a", section_heading: "Topics"},
  {chapter_id: "b", section_heading: "Overview"},
  {chapter_id: "c", section_heading: "Overview"},
  {section_heading: "No chapter"}
];
var used = {};
var out = ["\u201cOverview\u201d (Services)", "\u201cOverview\u201d", "\u201cTopics\u201d (Nodes and Topics)", "Topics", "\u201cNo chapter\u201d", "\u201cMissing\u201d"].map(function (t) {
  var i = placeSource(t, sources, used);
  if (i >= 0) used[i] = true;
  return i;
});
console.log(out.join(","));
`
	got, err := exec.Command(node, "-e", script).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v: %s", err, got)
	}
	if want := "1,2,0,-1,-1,-1"; strings.TrimSpace(string(got)) != want {
		t.Errorf("matched %s, want %s", strings.TrimSpace(string(got)), want)
	}
}
