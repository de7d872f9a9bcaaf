package bert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// golden holds texts with the token ids of Hugging Face's tokenizers and
// the vectors of sentence-transformers for all-MiniLM-L6-v2 (made once by
// scripts/golden.py with the reference implementation).
type golden struct {
	MaxSeqLength int `json:"max_seq_length"`
	Cases        []struct {
		Text   string    `json:"text"`
		IDs    []int32   `json:"ids"`
		Vector []float32 `json:"vector"`
	} `json:"cases"`
}

// modelDir is the pinned model's folder, from TEXTBOOK_RAG_MODEL (set it
// with `export TEXTBOOK_RAG_MODEL=$(scripts/model)`); tests of the real
// model skip without it.
func modelDir(t testing.TB) string {
	dir := os.Getenv("TEXTBOOK_RAG_MODEL")
	if dir == "" {
		t.Skip("TEXTBOOK_RAG_MODEL not set: skipping the sentence model's fidelity test (export TEXTBOOK_RAG_MODEL=$(scripts/model))")
	}
	return dir
}

func readGolden(t *testing.T) golden {
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

func TestTokenizerMatchesReference(t *testing.T) {
	m, err := Load(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readGolden(t).Cases {
		got := m.tok.encode(c.Text, 1<<20)
		if !slices.Equal(got, c.IDs) {
			t.Errorf("%.40q: ids\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}

func TestVectorsMatchReference(t *testing.T) {
	m, err := Load(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	g := readGolden(t)
	if m.maxLen != g.MaxSeqLength {
		t.Errorf("max length %d, the reference's %d", m.maxLen, g.MaxSeqLength)
	}
	texts := make([]string, len(g.Cases))
	for i, c := range g.Cases {
		texts[i] = c.Text
	}
	vs, err := m.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	worst := 1.0
	for i, c := range g.Cases {
		var dot, n float64
		for j := range c.Vector {
			dot += float64(vs[i][j]) * float64(c.Vector[j])
			n += float64(vs[i][j]) * float64(vs[i][j])
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("%.40q: |v|² = %v, want a unit vector", c.Text, n)
		}
		worst = min(worst, dot)
		if dot < 0.99 {
			t.Errorf("%.40q: cosine with the reference %.5f, want ≥ 0.99", c.Text, dot)
		}
	}
	t.Logf("least cosine with the reference over %d texts: %.6f", len(g.Cases), worst)
}

// A text's vector must not depend on the texts batched with it: the
// vectors are cached by text alone, and a question embedded on its own
// must meet the same section vectors an ingest embedded in bulk.
func TestVectorsMatchReferenceInAnyBatch(t *testing.T) {
	m, err := Load(modelDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, c := range readGolden(t).Cases {
		texts = append(texts, c.Text)
	}
	// Short texts too, so that a batch stacks many of them.
	for i := range 40 {
		texts = append(texts, strings.Repeat("joint torque ", i%7+1))
	}
	together, err := m.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		alone, err := m.Embed(t.Context(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(alone[0], together[i]) {
			t.Errorf("%.40q: its vector in a batch differs from its vector alone", text)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(dir); !errors.Is(err, ErrNoModel) {
		t.Fatalf("empty folder: %v, want ErrNoModel", err)
	}
	good := `{"model_type":"bert","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":16,"layer_norm_eps":1e-12,"max_position_embeddings":16,"type_vocab_size":2,"vocab_size":10,"hidden_act":"gelu"}`
	cases := []struct {
		name, config, tokenizer, weights, want string
	}{
		{"not bert", strings.Replace(good, `"bert"`, `"gpt2"`, 1), "", "", "only bert"},
		{"heads", strings.Replace(good, `"num_attention_heads":2`, `"num_attention_heads":3`, 1), "", "", "heads"},
		{"bad json", `{`, "", "", "config.json"},
		{"no tokenizer", good, "", "", "tokenizer.json"},
		{"bpe", good, `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"BPE","vocab":{}}}`, "", "WordPiece"},
		{"no weights", good, `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"[PAD]":3}}}`, "", "model.safetensors"},
		{"short weights", good, `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"[PAD]":3}}}`, "abc", "too short"},
		{"huge header", good, `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"[PAD]":3}}}`, "\xff\xff\xff\xff\xff\xff\xff\xff{}", "header length"},
		{"missing tensor", good, `{"normalizer":{"type":"BertNormalizer"},"model":{"type":"WordPiece","unk_token":"[UNK]","vocab":{"[UNK]":0,"[CLS]":1,"[SEP]":2,"[PAD]":3}}}`, "\x02\x00\x00\x00\x00\x00\x00\x00{}", "missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(dir)
			write("config.json", c.config)
			if c.tokenizer != "" {
				write("tokenizer.json", c.tokenizer)
			}
			if c.weights != "" {
				write("model.safetensors", c.weights)
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Load: %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

// benchmarkEmbed embeds texts with the pinned model, once an iteration,
// and reports the tokens embedded a second of the wall clock and of CPU
// time (scripts/peer-bench compares them with ONNX Runtime's).
func benchmarkEmbed(b *testing.B, texts []string) {
	m, err := Load(modelDir(b))
	if err != nil {
		b.Fatal(err)
	}
	tokens := 0
	for _, t := range texts {
		tokens += len(m.tok.encode(t, m.maxLen))
	}
	cpu := cpuSeconds()
	for b.Loop() {
		if _, err := m.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tokens*b.N)/b.Elapsed().Seconds(), "tokens/s")
	// On a shared machine the wall clock counts the others' work too.
	if used := cpuSeconds() - cpu; cpu >= 0 && used > 0 {
		b.ReportMetric(float64(tokens*b.N)/used, "tokens/cpu-s")
	}
}

func BenchmarkEmbedQuestion(b *testing.B) {
	benchmarkEmbed(b, []string{"How do I create a ROS 2 publisher in Python?"})
}

// BenchmarkEmbedHeadings embeds 256 headings of a few words, as opening
// a book does; ns/op divided by 256 is the cost of one.
func BenchmarkEmbedHeadings(b *testing.B) {
	texts := make([]string, 256)
	for i := range texts {
		texts[i] = fmt.Sprintf("Chapter %d: Controlling a robot arm, part %d", i/8, i%8)
	}
	benchmarkEmbed(b, texts)
}

// BenchmarkEmbedPassages embeds the 64 passages of about 100 words of
// testdata/passages.txt, as ingest does; ns/op divided by 64 is the cost
// of one. scripts/peer-bench gives ONNX Runtime the same file.
func BenchmarkEmbedPassages(b *testing.B) {
	raw, err := os.ReadFile("testdata/passages.txt")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkEmbed(b, strings.Split(strings.TrimSpace(string(raw)), "\n"))
}
