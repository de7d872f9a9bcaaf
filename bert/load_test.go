package bert

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
)

// tinyConfig is a BERT small enough to write in a test: 8 wide, 2 heads,
// a 10-word vocabulary.
func tinyConfig() map[string]any {
	return map[string]any{
		"model_type": "bert", "hidden_act": "gelu", "hidden_size": 8, "num_hidden_layers": 2,
		"num_attention_heads": 2, "intermediate_size": 16, "layer_norm_eps": 1e-12,
		"max_position_embeddings": 16, "type_vocab_size": 2, "vocab_size": 10,
	}
}

// tinyTokenizer is a WordPiece tokenizer.json over tinyConfig's words.
func tinyTokenizer() map[string]any {
	return map[string]any{
		"normalizer":   map[string]any{"type": "BertNormalizer", "lowercase": true},
		"padding":      map[string]any{"pad_token": "[PAD]"},
		"added_tokens": []map[string]any{{"id": 0, "content": "[PAD]"}, {"id": 1, "content": "[UNK]"}},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"vocab": map[string]int{"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "the": 4, "cat": 5, "dog": 6, "sat": 7, "##s": 8, ".": 9},
		},
	}
}

// tensorSpec is one tensor of a safetensors file a test writes: its
// header entry and, for F32, its values.
type tensorSpec struct {
	dtype   string
	shape   []int
	offsets [2]uint64
	data    []float32
}

// tinyTensors are the tensors of a model of cfg's sizes, filled with
// small deterministic values, and position ids as checkpoints keep them.
func tinyTensors(cfg map[string]any) map[string]*tensorSpec {
	n := func(k string) int { return cfg[k].(int) }
	h, inter := n("hidden_size"), n("intermediate_size")
	ts := map[string]*tensorSpec{"embeddings.position_ids": {dtype: "I64", shape: []int{1, n("max_position_embeddings")}}}
	seed := uint32(1)
	add := func(name string, gain bool, shape ...int) {
		size := 1
		for _, d := range shape {
			size *= d
		}
		data := make([]float32, size)
		for i := range data {
			seed = seed*1664525 + 1013904223
			data[i] = float32(int32(seed>>8)%1000) / 2000
			if gain {
				data[i] += 1
			}
		}
		ts[name] = &tensorSpec{dtype: "F32", shape: shape, data: data}
	}
	norm := func(p string) {
		add(p+".weight", true, h)
		add(p+".bias", false, h)
	}
	add("embeddings.word_embeddings.weight", false, n("vocab_size"), h)
	add("embeddings.position_embeddings.weight", false, n("max_position_embeddings"), h)
	add("embeddings.token_type_embeddings.weight", false, n("type_vocab_size"), h)
	norm("embeddings.LayerNorm")
	for i := range n("num_hidden_layers") {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		for _, lin := range []struct {
			name    string
			out, in int
		}{{"attention.self.query", h, h}, {"attention.self.key", h, h}, {"attention.self.value", h, h}, {"attention.output.dense", h, h}, {"intermediate.dense", inter, h}, {"output.dense", h, inter}} {
			add(p+lin.name+".weight", false, lin.out, lin.in)
			add(p+lin.name+".bias", false, lin.out)
		}
		norm(p + "attention.output.LayerNorm")
		norm(p + "output.LayerNorm")
	}
	return ts
}

// encodeSafetensors lays tensors out as a safetensors file. Offsets are
// computed from the data unless a spec sets them (a hostile header).
func encodeSafetensors(ts map[string]*tensorSpec) []byte {
	names := make([]string, 0, len(ts))
	for name := range ts {
		names = append(names, name)
	}
	sort.Strings(names)
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var body []byte
	for _, name := range names {
		t := ts[name]
		begin := uint64(len(body))
		switch t.dtype {
		case "F32":
			for _, v := range t.data {
				body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
			}
		case "I64":
			for i := range t.shape[len(t.shape)-1] {
				body = binary.LittleEndian.AppendUint64(body, uint64(i))
			}
		}
		offsets := t.offsets
		if offsets == [2]uint64{} {
			offsets = [2]uint64{begin, uint64(len(body))}
		}
		header[name] = map[string]any{"dtype": t.dtype, "shape": t.shape, "data_offsets": offsets}
	}
	raw, _ := json.Marshal(header)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(raw)))
	return append(append(out, raw...), body...)
}

// writeModel writes a model folder from its three files' contents.
func writeModel(t testing.TB, dir string, cfg, tok map[string]any, weights []byte) {
	t.Helper()
	for name, v := range map[string]any{"config.json": cfg, "tokenizer.json": tok} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), weights, 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadTiny writes and loads the tiny model.
func loadTiny(t *testing.T) *Model {
	t.Helper()
	dir := t.TempDir()
	cfg := tinyConfig()
	writeModel(t, dir, cfg, tinyTokenizer(), encodeSafetensors(tinyTensors(cfg)))
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTinyModelEmbeds(t *testing.T) {
	m := loadTiny(t)
	texts := []string{"The cat sat.", "the dogs", "zebra", strings.Repeat("cat ", 40)}
	vs, err := m.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != 8 || math.Abs(n-1) > 1e-4 {
			t.Errorf("%q: %d numbers of squared length %v, want a unit vector of 8", texts[i], len(v), n)
		}
		alone, err := m.Embed(t.Context(), texts[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone[0], v) {
			t.Errorf("%q: its vector alone differs from its vector in a batch", texts[i])
		}
	}
}

// TestLoadRefusesHostileFolders loads model folders whose files disagree
// with each other or claim sizes past any model: each must be a clear
// error naming the file, quickly and without allocating what it claims.
func TestLoadRefusesHostileFolders(t *testing.T) {
	withConfig := func(k string, v any) func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
		return func(cfg, tok map[string]any, ts map[string]*tensorSpec) { cfg[k] = v }
	}
	withWord := func(word string, id int) func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
		return func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
			tok["model"].(map[string]any)["vocab"].(map[string]int)[word] = id
		}
	}
	withTensor := func(name string, spec tensorSpec) func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
		return func(cfg, tok map[string]any, ts map[string]*tensorSpec) { ts[name] = &spec }
	}
	cases := []struct {
		name   string
		change func(cfg, tok map[string]any, ts map[string]*tensorSpec)
		want   []string
	}{
		{"word past the vocabulary", withWord("zebra", 40000), []string{"tokenizer.json", `"zebra"`, "40000"}},
		{"negative id", withWord("zebra", -1), []string{"tokenizer.json", "-1"}},
		{"added token past the vocabulary", func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
			tok["added_tokens"] = []map[string]any{{"id": 10, "content": "[MASK]"}}
		}, []string{"tokenizer.json", "[MASK]"}},
		{"no [PAD]", func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
			delete(tok["model"].(map[string]any)["vocab"].(map[string]int), "[PAD]")
		}, []string{"tokenizer.json", "[PAD]"}},
		{"no unknown token", func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
			tok["model"].(map[string]any)["unk_token"] = "<unk>"
		}, []string{"tokenizer.json", "<unk>"}},
		{"a million layers", withConfig("num_hidden_layers", 1_000_000), []string{"config.json", "num_hidden_layers"}},
		{"a hundred million layers", withConfig("num_hidden_layers", 100_000_000), []string{"config.json", "num_hidden_layers"}},
		{"more layers than the file", withConfig("num_hidden_layers", 3), []string{"model.safetensors", "encoder.layer.2", "missing"}},
		{"huge hidden size", withConfig("hidden_size", 1<<40), []string{"config.json", "hidden_size"}},
		{"vocabulary past the table", withConfig("vocab_size", 12), []string{"model.safetensors", "word_embeddings", "[10 8]"}},
		{"no eps", withConfig("layer_norm_eps", 0), []string{"config.json", "layer_norm_eps"}},
		{"shape overflowing to a small size", withTensor("embeddings.LayerNorm.bias", tensorSpec{dtype: "F32", shape: []int{1<<62 + 1}, offsets: [2]uint64{0, 4}}), []string{"model.safetensors", "embeddings.LayerNorm.bias", "larger than the file"}},
		{"shape whose product overflows", withTensor("x", tensorSpec{dtype: "F32", shape: []int{1 << 40, 1 << 40}, offsets: [2]uint64{0, 4}}), []string{"model.safetensors", "larger than the file"}},
		{"negative shape", withTensor("x", tensorSpec{dtype: "F32", shape: []int{-1, -4}, offsets: [2]uint64{0, 16}}), []string{"model.safetensors", "negative"}},
		{"range past the file", withTensor("x", tensorSpec{dtype: "F32", shape: []int{1}, offsets: [2]uint64{1 << 40, 1<<40 + 4}}), []string{"model.safetensors", "outside"}},
		{"reversed range", withTensor("x", tensorSpec{dtype: "F32", shape: []int{0}, offsets: [2]uint64{8, 4}}), []string{"model.safetensors", "outside"}},
		{"unknown dtype", withTensor("x", tensorSpec{dtype: "Q4", shape: []int{1}, offsets: [2]uint64{0, 4}}), []string{"model.safetensors", "Q4"}},
		{"weights not float32", func(cfg, tok map[string]any, ts map[string]*tensorSpec) {
			ts["embeddings.LayerNorm.bias"] = &tensorSpec{dtype: "I64", shape: []int{8}}
		}, []string{"model.safetensors", "I64"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, tok := tinyConfig(), tinyTokenizer()
			ts := tinyTensors(cfg)
			c.change(cfg, tok, ts)
			writeModel(t, dir, cfg, tok, encodeSafetensors(ts))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Load(dir)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("Load: no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load: %v, want an error mentioning %q", err, w)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
				t.Errorf("Load allocated %d bytes before refusing the folder", alloc)
			}
		})
	}
}

// TestHostileTokenizerOfTheRealModel gives the pinned model a tokenizer
// with one id past its vocabulary, as a tokenizer taken from a bigger
// model does.
func TestHostileTokenizerOfTheRealModel(t *testing.T) {
	src := modelDir(t)
	dir := t.TempDir()
	for _, name := range []string{"config.json", "model.safetensors"} {
		if err := os.Symlink(filepath.Join(src, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tok map[string]any
	if err := json.Unmarshal(raw, &tok); err != nil {
		t.Fatal(err)
	}
	tok["model"].(map[string]any)["vocab"].(map[string]any)["zebra"] = 40000
	if raw, err = json.Marshal(tok); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), "tokenizer.json") || !strings.Contains(err.Error(), "40000") {
		t.Fatalf("Load: %v, want an error naming tokenizer.json and the id 40000", err)
	}
}

// TestEmbedTurnsAPanicIntoAnError breaks a loaded model's tokenizer
// behind Load's back: the encoder's panic must be the call's error, not
// the end of the process.
func TestEmbedTurnsAPanicIntoAnError(t *testing.T) {
	m := loadTiny(t)
	m.tok.vocab["zebra"] = 40000
	texts := []string{"the cat", "zebra", "the dog", "cat sat"}
	for range 3 {
		if _, err := m.Embed(context.Background(), texts); err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Embed: %v, want an internal error", err)
		}
	}
	if _, err := m.Embed(context.Background(), []string{"the cat"}); err != nil {
		t.Fatalf("Embed after a panic: %v", err)
	}
}

// TestIDNamesTheArithmetic: the vectors files are named by the first 16
// characters of the ID, so a change of arithmetic must show there, capped
// or not.
func TestIDNamesTheArithmetic(t *testing.T) {
	m := loadTiny(t)
	sha := strings.TrimPrefix(m.ID(), arithmetic+"-")
	if sha == m.ID() || len(sha) != 64 {
		t.Fatalf("ID %q: want %s- and the weights' SHA-256", m.ID(), arithmetic)
	}
	if got, old := m.Capped(8).ID()[:16], ("cap8-" + sha)[:16]; got == old {
		t.Errorf("capped ID %q starts as the previous arithmetic's did", m.Capped(8).ID())
	}
}
