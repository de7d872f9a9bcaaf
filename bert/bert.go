// Package bert runs a BERT-family sentence model (all-MiniLM-L6-v2,
// bge-small, e5-small) inside the binary: it reads a model folder in the
// Hugging Face layout (config.json, tokenizer.json, model.safetensors and
// sentence-transformers' pooling files) and turns texts into unit vectors,
// so that the tutor can weigh meaning without Python, a GPU or a network.
//
// The encoder is the textbook BERT forward pass in float32, its matrix
// products in assembly tiles (gemm.go), checked against vectors of the
// model's own reference implementation (testdata/golden.json). On this
// project's machine it embeds about 1.2-1.5 times the tokens a second of
// ONNX Runtime with an int8 graph of the same model (scripts/peer-bench),
// without cgo.
package bert

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Model is a loaded sentence model; it is safe for concurrent use.
type Model struct {
	cfg    config
	tok    *tokenizer
	w      weights
	maxLen int
	id     string
	name   string
}

type config struct {
	ModelType    string  `json:"model_type"`
	Hidden       int     `json:"hidden_size"`
	Layers       int     `json:"num_hidden_layers"`
	Heads        int     `json:"num_attention_heads"`
	Intermediate int     `json:"intermediate_size"`
	Eps          float64 `json:"layer_norm_eps"`
	MaxPositions int     `json:"max_position_embeddings"`
	TypeVocab    int     `json:"type_vocab_size"`
	Vocab        int     `json:"vocab_size"`
	Act          string  `json:"hidden_act"`
}

// ErrNoModel says a folder holds no sentence model.
var ErrNoModel = errors.New("no sentence model")

// Load reads the model folder dir.
func Load(dir string) (*Model, error) {
	m, err := load(dir)
	if err != nil {
		return nil, fmt.Errorf("sentence model %s: %w", dir, err)
	}
	return m, nil
}

func load(dir string) (*Model, error) {
	raw, err := readSmall(filepath.Join(dir, "config.json"), maxSmallFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: config.json is missing", ErrNoModel)
	}
	if err != nil {
		return nil, err
	}
	var cfg config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("config.json: %w", err)
	}
	pooling, err := readPooling(dir)
	if err != nil {
		return nil, err
	}
	if !pooling {
		return nil, errors.New("1_Pooling/config.json: only mean pooling is supported")
	}
	tok, err := readTokenizer(filepath.Join(dir, "tokenizer.json"), cfg.Vocab)
	if err != nil {
		return nil, err
	}
	weightsPath := filepath.Join(dir, "model.safetensors")
	st, err := openSafetensors(weightsPath)
	if err != nil {
		return nil, err
	}
	w, err := cfg.weights(st)
	st.f.Close()
	if err != nil {
		return nil, fmt.Errorf("model.safetensors: %w", err)
	}
	id, err := fileDigest(weightsPath)
	if err != nil {
		return nil, err
	}
	maxLen := cfg.MaxPositions
	var sb struct {
		MaxSeqLength int `json:"max_seq_length"`
	}
	raw, err = readSmall(filepath.Join(dir, "sentence_bert_config.json"), maxSmallFile)
	if err == nil {
		if err := json.Unmarshal(raw, &sb); err != nil {
			return nil, fmt.Errorf("sentence_bert_config.json: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if sb.MaxSeqLength > 0 && sb.MaxSeqLength < maxLen {
		maxLen = sb.MaxSeqLength
	}
	return &Model{cfg: cfg, tok: tok, w: w, maxLen: maxLen, id: arithmetic + "-" + id, name: filepath.Base(filepath.Clean(dir))}, nil
}

// Bounds on a config's sizes, far above any BERT-family sentence model
// (BERT-large: 24 layers of 1024, 4096 wide inside, 30,522 words, 512
// positions; multilingual vocabularies reach 250,000 words): a config
// past them is refused before anything is allocated.
const (
	maxLayers       = 64
	maxHidden       = 8192
	maxIntermediate = 4 * maxHidden
	maxPositions    = 1 << 16
	maxVocab        = 1 << 20
	maxTypeVocab    = 1 << 10
)

func (c config) check() error {
	switch {
	case c.ModelType != "bert":
		return fmt.Errorf("model_type %q: only bert is supported", c.ModelType)
	case c.Act != "gelu":
		return fmt.Errorf("hidden_act %q: only gelu is supported", c.Act)
	case c.Layers <= 0 || c.Intermediate <= 0 || c.MaxPositions <= 2 || c.Vocab <= 0 || c.TypeVocab <= 0:
		return errors.New("layer, size or vocabulary counts are missing")
	case c.Hidden <= 0 || c.Heads <= 0 || c.Hidden%c.Heads != 0:
		return fmt.Errorf("hidden_size %d does not split into %d heads", c.Hidden, c.Heads)
	case !(c.Eps > 0 && c.Eps < 1):
		return errors.New("layer_norm_eps is missing or not a small positive number")
	}
	for _, b := range []struct {
		name       string
		size, most int
	}{
		{"num_hidden_layers", c.Layers, maxLayers},
		{"hidden_size", c.Hidden, maxHidden},
		{"intermediate_size", c.Intermediate, maxIntermediate},
		{"max_position_embeddings", c.MaxPositions, maxPositions},
		{"vocab_size", c.Vocab, maxVocab},
		{"type_vocab_size", c.TypeVocab, maxTypeVocab},
	} {
		if b.size > b.most {
			return fmt.Errorf("%s %d is past the bound of %d", b.name, b.size, b.most)
		}
	}
	return nil
}

// maxSmallFile bounds a model folder's JSON files other than the
// tokenizer: they hold a few settings.
const maxSmallFile = 1 << 20

// readSmall reads a regular file of at most limit bytes, so that a
// folder's file that is huge, or a link to a device, fails fast instead
// of filling memory.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, past the bound of %d", path, info.Size(), limit)
	}
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s: past the bound of %d bytes", path, limit)
	}
	return raw, nil
}

// readPooling reports whether the model pools by the mean of its tokens
// (a folder without 1_Pooling is taken to, as sentence-transformers does).
func readPooling(dir string) (bool, error) {
	raw, err := readSmall(filepath.Join(dir, "1_Pooling", "config.json"), maxSmallFile)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var p struct {
		Mean bool `json:"pooling_mode_mean_tokens"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return false, fmt.Errorf("1_Pooling/config.json: %w", err)
	}
	return p.Mean, nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// batchRows is about how many token rows a batch stacks: enough for a
// matrix product to keep both cores busy with short texts, few enough
// that the batch's states stay in the cache (256 rows × 1536 floats of
// the widest layer is 1.5 MiB).
const batchRows = 256

// arithmetic names the encoder's arithmetic in every ID, so that vectors
// kept on disk by an encoder that rounds differently are not mixed with
// this one's. e2: GELU and softmax's exponential in float32 (e1, unnamed:
// both through float64's math.Erf and math.Exp; cosine with e2 ≥
// 0.99999994).
const arithmetic = "e2"

// ID names the encoder's arithmetic, the model's weights (their SHA-256)
// and, when Capped, the cap: vectors cached under it are this model's.
func (m *Model) ID() string { return m.id }

// Capped returns the model cutting texts at n tokens: an embedding costs
// in proportion to its tokens (and attention to their square), and the
// start of a passage carries most of what it is about.
func (m *Model) Capped(n int) *Model {
	c := *m
	c.maxLen = max(3, min(n, m.maxLen))
	c.id = fmt.Sprintf("cap%d-%s", c.maxLen, m.id)
	return &c
}

// Name is the model folder's name, for messages.
func (m *Model) Name() string { return m.name }

// Dimension is the length of every vector.
func (m *Model) Dimension() int { return m.cfg.Hidden }

// Embed returns one unit vector a text, the mean of the last layer's
// token states as sentence-transformers pools them. Texts past the
// model's length are cut, as its reference implementation does. Texts
// are encoded in batches of about batchRows tokens, spread over the
// machine's cores. A panic in the encoder (a bug) is this call's error,
// never the process's end.
func (m *Model) Embed(ctx context.Context, texts []string) (vecs [][]float32, err error) {
	defer func() {
		if r := recover(); r != nil {
			vecs, err = nil, fmt.Errorf("embed: internal error: %v", r)
		}
	}()
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		seqs[i] = m.tok.encode(t, m.maxLen)
	}
	var batches [][2]int // [from, to) in texts
	for from := 0; from < len(seqs); {
		to, rows := from, 0
		for to < len(seqs) && (to == from || rows+len(seqs[to]) <= batchRows) {
			rows += len(seqs[to])
			to++
		}
		batches = append(batches, [2]int{from, to})
		from = to
	}
	out := make([][]float32, len(texts))
	next := make(chan [2]int)
	failed := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(batches)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() {
						err = fmt.Errorf("embed: internal error: %v", r)
						close(failed)
					})
				}
			}()
			// A lone batch has the cores to itself: its products are
			// split over them.
			s := scratch{workers: 1}
			if len(batches) == 1 {
				s.workers = runtime.GOMAXPROCS(0)
			}
			for b := range next {
				copy(out[b[0]:b[1]], m.encode(&s, seqs[b[0]:b[1]]))
			}
		}()
	}
feed:
	for _, b := range batches {
		select {
		case next <- b:
		case <-failed:
			break feed
		case <-ctx.Done():
			once.Do(func() { err = fmt.Errorf("embed: %w", ctx.Err()) })
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	return out, nil
}
