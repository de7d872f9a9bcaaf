package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/textbook-rag/rag/bert"
	"github.com/textbook-rag/rag/vectors"
)

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
// from an earlier start), so that a question costs one embedding, unless
// the config asks for them on demand.
func (m *Main) openMeaning(ctx context.Context) error {
	cfg := m.Config
	if cfg.SentenceModel == "" {
		return nil
	}
	full, err := loadSentenceModel(cfg.SentenceModel)
	if err != nil {
		return err
	}
	model := full.Capped(meaningTokens)
	dir := cmp.Or(cfg.Vectors, filepath.Join(m.Dir, "vectors"))
	cache, err := vectors.Open(dir, model)
	if err != nil {
		return err
	}
	var texts []string
	if !cfg.MeaningOnDemand {
		texts = m.Answerer.MeaningTexts()
	}
	start := time.Now()
	// In batches, each kept as it is done: a start cut short resumes.
	for from := 0; from < len(texts); from += meaningBatch {
		if _, err := cache.Vectors(ctx, texts[from:min(from+meaningBatch, len(texts))]); err != nil {
			return fmt.Errorf("embed the book with %s: %w", model.Name(), err)
		}
	}
	m.Meaning = cache
	if n := cache.Embedded(); n > 0 {
		fmt.Fprintf(m.stderr, "sentence model %s: embedded %d of the book's %d texts in %s (kept in %s)\n", model.Name(), n, len(texts), time.Since(start).Round(time.Millisecond), cache.Path())
	}
	if err := m.Answerer.SetMeaning(cache); err != nil {
		fmt.Fprintf(m.stderr, "warning: %v; the answerer weighs words alone\n", err)
	}
	return nil
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
