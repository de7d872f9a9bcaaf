package dense

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/textbook-rag/rag"
)

// bagEmbedder embeds a text as counts of a few words: enough geometry to
// test nearest-neighbour search without a model.
type bagEmbedder struct{ calls int }

var words = []string{"topic", "service", "lidar", "imu"}

func (e *bagEmbedder) Dimension() int { return len(words) }
func (e *bagEmbedder) ID() string     { return "bag" }

func (e *bagEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.calls++
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(words))
		for j, w := range words {
			v[j] = float32(strings.Count(strings.ToLower(t), w))
		}
		out[i] = v
	}
	return out, nil
}

var chunks = []rag.Chunk{
	{ID: "a", Text: "A topic carries messages; a topic is many-to-many."},
	{ID: "b", Text: "A service answers one request."},
	{ID: "c", Text: "A LiDAR times a laser pulse; an IMU drifts."},
}

func TestIndexAndRetrieve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vectors.json")
	store, err := OpenFlat(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	emb := &bagEmbedder{}
	var progress []int
	if err := Index(context.Background(), emb, store, chunks, 2, func(done, total int) { progress = append(progress, done) }); err != nil {
		t.Fatal(err)
	}
	if emb.calls != 2 || len(progress) != 2 || progress[1] != 3 {
		t.Errorf("%d embed calls, progress %v; want 2 batches", emb.calls, progress)
	}
	r := &Retriever{Embedder: emb, Store: store}
	before := emb.calls
	res, err := r.Retrieve(context.Background(), "what is a topic", 2)
	if err != nil {
		t.Fatal(err)
	}
	if emb.calls-before != 1 {
		t.Errorf("the question was embedded %d times, want once", emb.calls-before)
	}
	if len(res) != 2 || res[0].ID != "a" || res[0].Score < 0.99 || res[0].Score > 1 || res[1].Score != 0 {
		t.Errorf("results %+v", res)
	}

	// The file survives a reopen (another dimension: see
	// TestOpenFlatOtherDimension).
	again, err := OpenFlat(path, 4)
	if err != nil || again.Len() != 3 {
		t.Fatalf("reopen: %v, %d chunks", err, again.Len())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temp files left: %v", entries)
	}

	// Replace drops chunks that are gone.
	if err := Index(context.Background(), emb, store, chunks[:1], 8, nil); err != nil {
		t.Fatal(err)
	}
	if store.Len() != 1 {
		t.Errorf("after replace: %d chunks", store.Len())
	}
}

// A model of another dimension (a course team moving from one provider to
// another) starts the flat store afresh: its vectors are the old model's
// and the book is embedded again, instead of the store refusing to open.
func TestOpenFlatOtherDimension(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vectors.json")
	old, err := OpenFlat(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Replace(context.Background(), chunks[:1], [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFlat(path, len(words))
	if err != nil {
		t.Fatalf("reopening with another dimension: %v", err)
	}
	if s.Len() != 0 {
		t.Fatalf("the store kept %d chunks of the other dimension", s.Len())
	}
	if err := Index(context.Background(), &bagEmbedder{}, s, chunks, 2, nil); err != nil {
		t.Fatal(err)
	}
	again, err := OpenFlat(path, len(words))
	if err != nil || again.Len() != len(chunks) {
		t.Fatalf("after embedding again: %d chunks, %v", again.Len(), err)
	}
}
