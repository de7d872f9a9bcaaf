package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/report"
	"github.com/textbook-rag/rag/tutor"
)

// selfCheckFile holds, in the book's folder, the self-check of the book
// as last ingested or served, for the course report, with the key of
// what it was computed from.
const selfCheckFile = "selfcheck.json"

// storedCheck is selfCheckFile's content.
type storedCheck struct {
	eval.SelfCheck
	// Key names what the result was computed from (selfCheckKey).
	Key string `json:"key,omitempty"`
}

// selfCheckKey names what a self-check's result depends on: the book and
// its chunking, the answerer's model, the thresholds, the sample's size.
// A start whose key matches the stored one reuses the stored result.
func selfCheckKey(tc tutor.Config, ix *datadir.Index) string {
	h := sha256.New()
	fmt.Fprintf(h, "book=%s\noptions=%s\nmodel=%s\nempty=%v confident=%v topk=%d\nsample=%d\nversion=%s\n",
		ix.Book.Hash, ix.Options, answer.ModelDigest(), tc.EmptyThreshold, tc.ConfidentThreshold, tc.TopK,
		eval.MaxSelfCheckQuestions, rag.Version)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// selfCheck asks the book at most eval.MaxSelfCheckQuestions of the
// questions derived from its own definitions (answer.Probe), spread over
// the book, through the tutor's flow with the built-in retriever and
// the extractive answerer: a course team's book has no labelled
// questions, and this says how well the answerer reads its style. No
// language model or embeddings service is called.
func selfCheck(ctx context.Context, tc tutor.Config, ix *datadir.Index, lex *lexical.Index, ans *answer.Answerer) (eval.SelfCheck, error) {
	t := &tutor.Tutor{Config: tc, Retriever: lex, Evidence: ans, Scope: tutor.DefaultScope(), Extractive: extractive.Generator{}}
	probes := ans.DefinitionProbes()
	sc, err := eval.RunSelfCheck(ctx, t, eval.SampleProbes(probes, eval.MaxSelfCheckQuestions), ix.Chunk)
	sc.Derived = len(probes)
	return sc, err
}

// currentSelfCheck returns the book's self-check: the one kept in dir
// when it was computed from this book, model and settings, else a new
// one, asked of what open opens, which it keeps there (with a log, a
// failure to keep it is only logged: the result stands). computed says
// which.
func currentSelfCheck(ctx context.Context, tc tutor.Config, ix *datadir.Index, dir string, open func() (*lexical.Index, *answer.Answerer), log *slog.Logger) (sc eval.SelfCheck, computed bool, err error) {
	key := selfCheckKey(tc, ix)
	if st, ok := readStoredCheck(dir); ok && st.Key == key {
		return st.SelfCheck, false, nil
	}
	if beforeSelfCheck != nil {
		beforeSelfCheck()
	}
	lex, ans := open()
	if sc, err = selfCheck(ctx, tc, ix, lex, ans); err != nil {
		return sc, true, err
	}
	if err := saveSelfCheck(dir, storedCheck{SelfCheck: sc, Key: key}); err != nil {
		if log == nil {
			return sc, true, err
		}
		log.Warn("self-check not saved for the course report", "err", err)
	}
	return sc, true, nil
}

// beforeSelfCheck, set by tests, runs when a self-check is to be
// computed: a signal then must still be honoured at once.
var beforeSelfCheck func()

// readStoredCheck reads selfCheckFile; false when there is none or it
// cannot be read (it is then computed again).
func readStoredCheck(dir string) (storedCheck, bool) {
	var st storedCheck
	data, err := datadir.ReadFile(filepath.Join(dir, selfCheckFile), datadir.MaxSmallFileBytes)
	if err != nil || json.Unmarshal(data, &st) != nil {
		return st, false
	}
	return st, true
}

// saveSelfCheck writes the self-check into the book's folder, whole or
// not at all.
func saveSelfCheck(dir string, sc storedCheck) error {
	data, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, selfCheckFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("save self-check: %w", err)
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(dir, selfCheckFile))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("save self-check: %w", werr)
	}
	return nil
}

// loadSelfCheck reads the book folder's self-check; nil when there is
// none (a book served before the self-check existed).
func loadSelfCheck(dir string) (*report.SelfCheck, error) {
	data, err := datadir.ReadFile(filepath.Join(dir, selfCheckFile), datadir.MaxSmallFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read self-check: %w", err)
	}
	var sc eval.SelfCheck
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("read self-check %s: %w", filepath.Join(dir, selfCheckFile), err)
	}
	return reportSelfCheck(sc), nil
}

func reportSelfCheck(sc eval.SelfCheck) *report.SelfCheck {
	return &report.SelfCheck{Questions: sc.Questions, Own: sc.Own, Other: sc.Other}
}
