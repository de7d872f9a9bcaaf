package vectors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// letters is a stand-in model: a text's vector counts its a's, b's and
// c's, and every call is counted.
type letters struct {
	calls, texts int
	fail         bool
}

func (l *letters) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if l.fail {
		return nil, errors.New("model down")
	}
	l.calls++
	l.texts += len(texts)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(strings.Count(t, "a")), float32(strings.Count(t, "b")), float32(strings.Count(t, "c"))}
	}
	return out, nil
}
func (l *letters) Dimension() int { return 3 }
func (l *letters) ID() string     { return "0123456789abcdef0123" }

func TestCacheEmbedsEachTextOnce(t *testing.T) {
	dir := t.TempDir()
	m := &letters{}
	c, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := c.Vectors(context.Background(), []string{"aab", "c", "aab"})
	if err != nil {
		t.Fatal(err)
	}
	if m.texts != 2 || vs[0][0] != 2 || vs[2][1] != 1 || vs[1][2] != 1 {
		t.Fatalf("first call: %d texts embedded, vectors %v", m.texts, vs)
	}
	if _, err := c.Vectors(context.Background(), []string{"c", "aab"}); err != nil || m.calls != 1 {
		t.Fatalf("second call embedded again (%d calls, %v)", m.calls, err)
	}
	// A new process reads them back from the file.
	m2 := &letters{}
	c2, err := Open(dir, m2)
	if err != nil {
		t.Fatal(err)
	}
	vs, err = c2.Vectors(context.Background(), []string{"aab", "c", "bbb"})
	if err != nil {
		t.Fatal(err)
	}
	if m2.texts != 1 || vs[0][0] != 2 || vs[2][1] != 3 || c2.Len() != 3 || c2.Embedded() != 1 {
		t.Fatalf("reopened: %d texts embedded, %d held, vectors %v", m2.texts, c2.Len(), vs)
	}
}

// keptFile embeds texts into a new cache in a new folder and returns the
// folder and the cache's file, for tests that damage it.
func keptFile(t *testing.T, texts ...string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	c, err := Open(dir, &letters{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Vectors(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	return dir, c.Path()
}

func TestCacheDropsATornRecord(t *testing.T) {
	dir, path := keptFile(t, "a", "b")
	st, _ := os.Stat(path)
	// A crash in the middle of the second record.
	if err := os.Truncate(path, st.Size()-5); err != nil {
		t.Fatal(err)
	}
	m := &letters{}
	c2, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Len() != 1 {
		t.Fatalf("held %d vectors after a torn record, want 1", c2.Len())
	}
	if _, err := c2.Vectors(context.Background(), []string{"a", "b"}); err != nil || m.texts != 1 {
		t.Fatalf("re-embedded %d texts (%v), want only the torn one", m.texts, err)
	}
	c3, err := Open(dir, &letters{})
	if err != nil || c3.Len() != 2 {
		t.Fatalf("after repair: %d held (%v), want 2", c3.Len(), err)
	}
}

func TestCacheStartsAnewOnAnotherFormat(t *testing.T) {
	dir := t.TempDir()
	m := &letters{}
	path := filepath.Join(dir, m.ID()[:16]+".vec")
	if err := os.WriteFile(path, []byte("not a vector file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Vectors(context.Background(), []string{"abc"}); err != nil || c.Len() != 1 {
		t.Fatalf("%v, %d held", err, c.Len())
	}
}

func TestCacheModelError(t *testing.T) {
	c, err := Open(t.TempDir(), &letters{fail: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Vectors(context.Background(), []string{"a"}); err == nil {
		t.Fatal("no error from a failing model")
	}
	if c.Len() != 0 {
		t.Fatal("a failed call left vectors")
	}
}

// TestCachesOfOneFileDoNotInterleave has several Caches of one file
// append at once (the books of an evaluation do) and reads every vector
// back as it was written.
func TestCachesOfOneFileDoNotInterleave(t *testing.T) {
	dir := t.TempDir()
	const writers, texts = 4, 300
	var wg sync.WaitGroup
	for w := range writers {
		c, err := Open(dir, &letters{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range texts {
				text := strings.Repeat("a", w+1) + strings.Repeat("b", i) + "c"
				if _, err := c.Vectors(context.Background(), []string{text}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	m := &letters{}
	c, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != writers*texts {
		t.Fatalf("read back %d vectors, want %d", c.Len(), writers*texts)
	}
	for w := range writers {
		for i := range texts {
			text := strings.Repeat("a", w+1) + strings.Repeat("b", i) + "c"
			v, err := c.Vectors(context.Background(), []string{text})
			if err != nil || v[0][0] != float32(w+1) || v[0][1] != float32(i) || v[0][2] != 1 {
				t.Fatalf("%q read back as %v (%v)", text, v, err)
			}
		}
	}
	if m.texts != 0 {
		t.Errorf("%d texts embedded again", m.texts)
	}
}

// TestCacheDropsABrokenRecord flips a byte inside a record's vector: the
// record fails its check and is embedded again, never served.
func TestCacheDropsABrokenRecord(t *testing.T) {
	dir, path := keptFile(t, "aaa", "bbb")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := (len(raw) - 8) / 2
	raw[8+rec+32] ^= 0x40 // the second record's first float
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	m := &letters{}
	c2, err := Open(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c2.Vectors(context.Background(), []string{"aaa", "bbb"})
	if err != nil || v[1][1] != 3 || m.texts != 1 {
		t.Fatalf("after a broken record: %v (%v), %d embedded again, want bbb's vector and 1", v, err, m.texts)
	}
}

// TestOpenWhileAnotherAppends opens Caches of a file while another Cache
// appends to it: an Open must not take a record being written for one a
// crash cut short and cut the file back.
func TestOpenWhileAnotherAppends(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(dir, &letters{})
	if err != nil {
		t.Fatal(err)
	}
	const texts = 400
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range texts {
			if _, err := w.Vectors(context.Background(), []string{strings.Repeat("b", i) + "c"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for opened := false; !opened; {
		select {
		case <-done:
			opened = true
		default:
		}
		if _, err := Open(dir, &letters{}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Open(dir, &letters{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Len() != texts {
		t.Fatalf("read back %d vectors, want %d", c.Len(), texts)
	}
}
