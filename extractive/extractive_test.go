package extractive

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/textbook-rag/rag"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestGenerate(t *testing.T) {
	c1 := &rag.ScoredChunk{Chunk: rag.Chunk{ID: "1", ChapterTitle: "Topics", SectionHeading: "Quality of Service"}}
	c2 := &rag.ScoredChunk{Chunk: rag.Chunk{ID: "2", ChapterTitle: "Sensors", SectionHeading: "IMU"}}
	tests := []struct {
		name     string
		evidence []rag.Passage
	}{
		{"prose and items", []rag.Passage{
			{Text: "Reliability decides whether lost messages are resent.", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1},
			{Text: "It has two settings.", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1},
			{Text: "- `RELIABLE`: resend until delivered", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1},
			{Text: "- `BEST_EFFORT`: send once", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1},
			{Text: "An IMU drifts.", Chunk: c2},
		}},
		{"table rows share a header", []rag.Passage{
			{Text: "| Floor | mu |\n|---|---|\n| Tile | 0.3 |", Heading: rag.Heading{Text: "Friction"}, Chunk: c1},
			{Text: "| Floor | mu |\n|---|---|\n| Wood | 0.5 |", Heading: rag.Heading{Text: "Friction"}, Chunk: c1},
		}},
		{"code", []rag.Passage{
			{Text: "Create the package:", Heading: rag.Heading{Text: "Packages"}, Chunk: c1},
			{Text: "```bash\nros2 pkg create --build-type ament_python demo\n```", Heading: rag.Heading{Text: "Packages"}, Chunk: c1},
		}},
		{"selection", []rag.Passage{{Text: "The stamp is when the data was captured."}}},
		{"selection keeps paragraphs and lines", []rag.Passage{
			{Text: "A topic is a named channel.", Paragraph: 1},
			{Text: "Publishers never wait.", Paragraph: 1},
			{Text: "Reliability has two settings:", Paragraph: 2},
			{Text: "- `RELIABLE`: resend until delivered"},
			{Text: "- `BEST_EFFORT`: send once"},
			{Text: "Pick one per stream.", Paragraph: 3},
			{Text: "| Floor | mu |\n|---|---|\n| Tile | 0.3 |"},
			{Text: "| Floor | mu |\n|---|---|\n| Wood | 0.5 |"},
			{Text: "```bash\nros2 topic list\n\nros2 topic echo /imu\n```"},
		}},
		{"selection keeps its headings", []rag.Passage{
			{Text: "NITROS moves images between nodes.", Heading: rag.Heading{Level: 3, Text: "NITROS (NVIDIA Isaac Transport for ROS)"}, Paragraph: 1},
			{Text: "It shares GPU memory.", Heading: rag.Heading{Level: 3, Text: "NITROS (NVIDIA Isaac Transport for ROS)"}, Paragraph: 1},
			{Text: "- `cuVSLAM`: visual odometry", Heading: rag.Heading{Level: 3, Text: "Packages"}},
		}},
		{"paragraphs of a chunk", []rag.Passage{
			{Text: "Reliability decides whether lost messages are resent.", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1, Paragraph: 1},
			{Text: "Durability decides what a late subscriber gets.", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1, Paragraph: 2},
			{Text: "It is set per topic.", Heading: rag.Heading{Text: "Reliability"}, Chunk: c1, Paragraph: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var streamed string
			out, err := Generator{}.Generate(context.Background(), rag.GenerateRequest{Question: "q", Evidence: tt.evidence}, func(d string) error {
				streamed += d
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if streamed != out.Text {
				t.Errorf("streamed text %q differs from the answer %q", streamed, out.Text)
			}
			checkGolden(t, out.Text)
		})
	}
}

// checkGolden compares an answer with the test's golden file.
func checkGolden(t *testing.T, got string) {
	t.Helper()
	golden := filepath.Join("testdata", filepath.Base(t.Name())+".golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("answer =\n%s\nwant\n%s", got, want)
	}
}
