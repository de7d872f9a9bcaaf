// Package vectors keeps a sentence model's vectors of texts in a file, so
// that each text of a book is embedded once: at ingest, or at the first
// evaluation of a shared book, and never again while its text and the
// model stay the same. Vectors are keyed by the model's ID and the
// SHA-256 of the text.
package vectors

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/textbook-rag/rag"
)

// Model is the embedder whose vectors a Cache keeps.
type Model = rag.Embedder

// magic opens every vector file; the format is magic, the dimension
// (uint32, little-endian), then records of a text's SHA-256, its vector
// as little-endian float32s and the CRC-32 of both. The check catches a
// record that another writer's bytes broke into: a vector read back is
// always the one written for its text.
const magic = "TRV2"

// files serialises the reads and appends of every Cache of this process
// to one file: a Cache opened while another appends would otherwise read
// a record half written, take it for one cut short by a crash, and cut
// the file back.
var files sync.Map // path -> *sync.Mutex

// fileLock is the lock of the file at path.
func fileLock(path string) *sync.Mutex {
	mu, _ := files.LoadOrStore(path, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// Cache gives texts' vectors, embedding only the ones it has not seen.
// It is safe for concurrent use.
type Cache struct {
	model Model
	path  string
	mu    sync.Mutex
	vecs  map[[32]byte][]float32
	// queries keeps the vectors of recent questions in memory only (see
	// Query): a question is not the book's, and the file would grow with
	// every one asked.
	queries *lru
	// Embedded counts the texts the model had to embed, for reports.
	embedded int
}

// Open reads the model's vector file in dir (made when missing). A
// record cut short by a crash is dropped, and the file cut back to the
// records before it.
func Open(dir string, model Model) (*Cache, error) {
	c := &Cache{model: model, path: filepath.Join(dir, FileName(model.ID())), vecs: map[[32]byte][]float32{}, queries: newLRU(QueryCacheSize)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	if err := c.load(); err != nil {
		return nil, fmt.Errorf("vectors %s: %w", c.path, err)
	}
	return c, nil
}

// FileName is the name of the vector file of the model with this ID.
func FileName(id string) string {
	if len(id) > 16 {
		id = id[:16]
	}
	return id + ".vec"
}

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Len is how many texts' vectors the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.vecs)
}

// Embedded is how many texts the model embedded since Open.
func (c *Cache) Embedded() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.embedded
}

func (c *Cache) load() error {
	mu := fileLock(c.path)
	mu.Lock()
	defer mu.Unlock()
	f, err := os.Open(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head := make([]byte, len(magic)+4)
	if _, err := io.ReadFull(r, head); err != nil {
		f.Close()
		return c.reset("no header")
	}
	dim := int(binary.LittleEndian.Uint32(head[len(magic):]))
	if string(head[:len(magic)]) != magic || dim != c.model.Dimension() {
		f.Close()
		return c.reset(fmt.Sprintf("header %q of dimension %d", head[:len(magic)], dim))
	}
	rec := make([]byte, 32+4*dim+4)
	good := int64(len(head))
	for {
		if _, err := io.ReadFull(r, rec); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return os.Truncate(c.path, good)
			}
			return err
		}
		body := rec[:len(rec)-4]
		if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(rec[len(body):]) {
			// A broken record: it and what follows are dropped (and
			// embedded again when asked for).
			return os.Truncate(c.path, good)
		}
		var key [32]byte
		copy(key[:], rec)
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec[32+4*i:]))
		}
		c.vecs[key] = v
		good += int64(len(rec))
	}
}

// reset starts the file anew when it is not this model's.
func (c *Cache) reset(why string) error {
	if err := os.Remove(c.path); err != nil {
		return fmt.Errorf("%s: %w", why, err)
	}
	return nil
}

// Vectors returns each text's vector, embedding the texts the cache
// lacks in one call and appending them to its file.
func (c *Cache) Vectors(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	keys := make([][32]byte, len(texts))
	var missing []string
	var missingKeys [][32]byte
	seen := map[[32]byte]bool{}
	c.mu.Lock()
	for i, t := range texts {
		keys[i] = sha256.Sum256([]byte(t))
		if v, ok := c.vecs[keys[i]]; ok {
			out[i] = v
		} else if !seen[keys[i]] {
			seen[keys[i]] = true
			missing = append(missing, t)
			missingKeys = append(missingKeys, keys[i])
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	vs, err := c.model.Embed(ctx, missing)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(missing) {
		return nil, fmt.Errorf("vectors: the model returned %d vectors for %d texts", len(vs), len(missing))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.embedded += len(missing)
	for i, k := range missingKeys {
		c.vecs[k] = vs[i]
	}
	for i, k := range keys {
		if out[i] == nil {
			out[i] = c.vecs[k]
		}
	}
	if err := c.append(missingKeys, vs); err != nil {
		return nil, fmt.Errorf("vectors %s: %w", c.path, err)
	}
	return out, nil
}

// Embed is Vectors: a Cache is the embedder it keeps, for whoever embeds
// the book (the dense retriever's index), its vectors kept.
func (c *Cache) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return c.Vectors(ctx, texts)
}

// Dimension is the model's.
func (c *Cache) Dimension() int { return c.model.Dimension() }

// ID is the model's.
func (c *Cache) ID() string { return c.model.ID() }

var _ rag.QueryEmbedder = (*Cache)(nil)

// QueryCacheSize is how many questions' vectors a Cache keeps in memory:
// a student who asks again, or a page of widgets asking the same
// question, costs no embedding; each vector is 1.5 kB.
const QueryCacheSize = 4096

// Query returns the vector of a question: the book's vector of the same
// text when the cache has one, else one kept in memory among the
// QueryCacheSize most recent, else embedded now. A question's vector is
// never written to the file.
func (c *Cache) Query(ctx context.Context, text string) ([]float32, error) {
	key := sha256.Sum256([]byte(text))
	c.mu.Lock()
	v, ok := c.vecs[key]
	if !ok {
		v, ok = c.queries.get(key)
	}
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	vs, err := c.model.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vs) != 1 {
		return nil, fmt.Errorf("vectors: the model returned %d vectors for one text", len(vs))
	}
	c.mu.Lock()
	c.queries.put(key, vs[0])
	c.mu.Unlock()
	return vs[0], nil
}

// ForgetQueries drops the questions' vectors kept in memory, so that a
// benchmark of questions asked again measures them as never seen.
func (c *Cache) ForgetQueries() {
	c.mu.Lock()
	c.queries = newLRU(QueryCacheSize)
	c.mu.Unlock()
}

// append writes the records whole, in one write to a file opened for
// appending, under the file's lock: records of two Caches of one file
// never interleave.
func (c *Cache) append(keys [][32]byte, vs [][]float32) error {
	mu := fileLock(c.path)
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	dim := c.model.Dimension()
	buf := make([]byte, 0, len(magic)+4+len(keys)*(32+4*dim+4))
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		buf = binary.LittleEndian.AppendUint32(append(buf, magic...), uint32(dim))
	}
	for i, k := range keys {
		start := len(buf)
		buf = append(buf, k[:]...)
		for _, x := range vs[i] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		}
		buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(buf[start:]))
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
