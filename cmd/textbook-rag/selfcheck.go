package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/textbook-rag/rag/analysis"
	"github.com/textbook-rag/rag/answer"
	"github.com/textbook-rag/rag/datadir"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/extractive"
	"github.com/textbook-rag/rag/lexical"
	"github.com/textbook-rag/rag/report"
	"github.com/textbook-rag/rag/tutor"
)

// selfCheckFile holds, in the book's folder, the self-check of the book
// as last ingested or served, for the course report.
const selfCheckFile = "selfcheck.json"

// selfCheck asks the book the questions derived from its own definitions
// (answer.Probe) through the tutor's flow with the built-in retriever and
// the extractive answerer: a course team's book has no labelled
// questions, and this says how well the answerer reads its style. No
// language model or embeddings service is called.
func selfCheck(ctx context.Context, tc tutor.Config, ix *datadir.Index, lex *lexical.Index, ans *answer.Answerer) (eval.SelfCheck, error) {
	t := &tutor.Tutor{Config: tc, Retriever: lex, Evidence: ans, Scope: tutor.DefaultScope(), Extractive: extractive.Generator{}}
	return eval.RunSelfCheck(ctx, t, ans.DefinitionProbes(), ix.Chunk)
}

// selfCheckIndex is selfCheck for a book of which only the index is
// open: it reads the book's analysis first.
func selfCheckIndex(ctx context.Context, tc tutor.Config, ix *datadir.Index) (eval.SelfCheck, error) {
	book := analysis.NewBook(ix.Chunks)
	return selfCheck(ctx, tc, ix, lexical.New(book), answer.New(book))
}

// saveSelfCheck writes the self-check into the book's folder, whole or
// not at all.
func saveSelfCheck(dir string, sc eval.SelfCheck) error {
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
	data, err := os.ReadFile(filepath.Join(dir, selfCheckFile))
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
