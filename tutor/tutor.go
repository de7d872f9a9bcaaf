// Package tutor decides, for each question, between an answer drawn from
// the book and one of the refusal spec's four refusals. Ask follows the
// spec's refusal flow step by step; nothing else in the project decides
// whether to refuse.
package tutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/textbook-rag/rag"
)

var _ rag.Tutor = (*Tutor)(nil)

// EvidenceFinder finds the parts of a text that answer a question. The
// lexical index implements it for every configuration: whatever retrieves
// the chunks, this decides whether they hold an answer.
type EvidenceFinder interface {
	// Evidence returns the passages of the chunks that answer the
	// question, or none.
	Evidence(question string, chunks []rag.ScoredChunk) []rag.Passage
	// SelectedEvidence returns the passages of the reader's selection that
	// answer the question, or none.
	SelectedEvidence(question, selected string) []rag.Passage
	// Topic names the question's main subject, or "" when it has none.
	Topic(question string) string
}

// Config holds the refusal spec's tunables; DefaultConfig has its values.
type Config struct {
	// EmptyThreshold: below it on every chunk, nothing relevant was found.
	EmptyThreshold float64
	// ConfidentThreshold: a chunk at or above it may be answered from.
	ConfidentThreshold float64
	TopK               int
	// CourseName fills the course's name into the refusal messages.
	CourseName string
	// FallbackOnGeneratorError answers with the fallback generator when
	// the main one fails, instead of returning the error.
	FallbackOnGeneratorError bool
}

// DefaultConfig returns the spec's thresholds and top-k.
func DefaultConfig() Config {
	return Config{
		EmptyThreshold:           0.5,
		ConfidentThreshold:       0.7,
		TopK:                     5,
		CourseName:               "Physical AI & Humanoid Robotics",
		FallbackOnGeneratorError: true,
	}
}

// Validate rejects thresholds that would make the flow meaningless.
func (c Config) Validate() error {
	if c.EmptyThreshold < 0 || c.EmptyThreshold > 1 || c.ConfidentThreshold < 0 || c.ConfidentThreshold > 1 {
		return fmt.Errorf("thresholds must lie in [0, 1]: empty %v, confident %v", c.EmptyThreshold, c.ConfidentThreshold)
	}
	if c.ConfidentThreshold < c.EmptyThreshold {
		return fmt.Errorf("confident threshold %v is below the empty threshold %v", c.ConfidentThreshold, c.EmptyThreshold)
	}
	if c.TopK < 1 || c.TopK > 100 {
		return fmt.Errorf("top-k must be 1..100, got %d", c.TopK)
	}
	return nil
}

// Tutor answers from the book or refuses.
type Tutor struct {
	Config    Config
	Retriever rag.Retriever
	Evidence  EvidenceFinder
	Scope     *Scope
	// Modules are the ingested book's module titles: the course's scope
	// as the out-of-scope refusal lists it.
	Modules []string
	// Generator writes answers; Fallback (the extractive answerer) stands
	// in when Generator fails and Config.FallbackOnGeneratorError is set.
	Generator rag.Generator
	Fallback  rag.Generator
	Refusals  *RefusalLog
	Logger    *slog.Logger
}

// Ask runs the refusal flow of the spec:
//
//	selected text?  yes: sufficient? no -> selected_text_insufficient; yes -> generate
//	                no:  retrieve top-k
//	                     nothing >= empty threshold     -> empty_retrieval
//	                     nothing >= confident threshold -> insufficient_context
//	                     out-of-scope pattern           -> out_of_scope
//	                     no passage answers             -> insufficient_context
//	                     otherwise                      -> generate from the confident chunks
//
// The generator is called only on the last line of each branch.
func (t *Tutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	if req.SelectedText != "" {
		evidence := t.Evidence.SelectedEvidence(req.Question, req.SelectedText)
		if len(evidence) == 0 {
			return t.refuse(req, rag.SelectedTextInsufficient, nil, "")
		}
		return t.generate(ctx, req, rag.GenerateRequest{Question: req.Question, SelectedText: req.SelectedText, Evidence: evidence}, stream)
	}

	chunks, err := t.Retriever.Retrieve(ctx, req.Question, t.Config.TopK)
	if err != nil {
		return rag.ChatResponse{}, fmt.Errorf("retrieve: %w", err)
	}
	if maxScore(chunks) < t.Config.EmptyThreshold {
		return t.refuse(req, rag.EmptyRetrieval, chunks, "")
	}
	var relevant []rag.ScoredChunk
	for _, c := range chunks {
		if c.Score >= t.Config.ConfidentThreshold {
			relevant = append(relevant, c)
		}
	}
	if len(relevant) == 0 {
		return t.refuse(req, rag.InsufficientContext, chunks, "")
	}
	if topic, ok := t.Scope.Match(req.Question); ok {
		return t.refuse(req, rag.OutOfScope, chunks, topic)
	}
	evidence := t.Evidence.Evidence(req.Question, relevant)
	if len(evidence) == 0 {
		return t.refuse(req, rag.InsufficientContext, chunks, "")
	}
	return t.generate(ctx, req, rag.GenerateRequest{Question: req.Question, Context: relevant, Evidence: evidence}, stream)
}

func maxScore(chunks []rag.ScoredChunk) float64 {
	m := 0.0
	for _, c := range chunks {
		m = max(m, c.Score)
	}
	return m
}

func (t *Tutor) refuse(req rag.ChatRequest, reason rag.RefusalReason, chunks []rag.ScoredChunk, outOfScopeTopic string) (rag.ChatResponse, error) {
	var msg string
	switch reason {
	case rag.EmptyRetrieval:
		msg = EmptyRetrievalMessage(t.Config.CourseName, t.Evidence.Topic(req.Question))
	case rag.InsufficientContext:
		msg = InsufficientContextMessage
	case rag.OutOfScope:
		msg = OutOfScopeMessage(t.Config.CourseName, t.Modules, outOfScopeTopic)
	case rag.SelectedTextInsufficient:
		msg = SelectedTextInsufficientMessage
	}
	t.Refusals.Log(req, reason, chunks)
	return rag.Refusal(reason, msg, req.SessionID), nil
}

func (t *Tutor) generate(ctx context.Context, req rag.ChatRequest, g rag.GenerateRequest, stream rag.Stream) (rag.ChatResponse, error) {
	sources := SourcesOf(g.Evidence)
	if stream != nil {
		if err := stream.Sources(sources); err != nil {
			return rag.ChatResponse{}, err
		}
	}
	var emit func(string) error
	if stream != nil {
		emit = stream.Delta
	}
	out, err := t.Generator.Generate(ctx, g, emit)
	if err != nil && t.Fallback != nil && t.Config.FallbackOnGeneratorError && ctx.Err() == nil {
		t.logger().Warn("generator failed; answering extractively", "err", err, "session_id", req.SessionID)
		out, err = t.Fallback.Generate(ctx, g, nil)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return rag.ChatResponse{}, err
		}
		return rag.ChatResponse{}, fmt.Errorf("generate: %w", err)
	}
	if out.Declined {
		// The model read the context and found no answer in it.
		return t.refuse(req, rag.InsufficientContext, g.Context, "")
	}
	return rag.ChatResponse{Answer: out.Answer, Sources: sources, SessionID: req.SessionID}, nil
}

func (t *Tutor) logger() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.Default()
}

// SourcesOf lists the chunks the evidence was drawn from, one source per
// section (a section split over two chunks is listed once), in the order
// the evidence cites them. Evidence from a
// reader's selection has no chunk and gives no source.
func SourcesOf(evidence []rag.Passage) []rag.Source {
	sources := []rag.Source{}
	seen := map[[2]string]bool{}
	for _, p := range evidence {
		if p.Chunk == nil {
			continue
		}
		heading, anchor := p.Heading.Text, p.Heading.Anchor
		if heading == "" {
			heading, anchor = p.Chunk.SectionHeading, p.Chunk.Anchor
		}
		key := [2]string{p.Chunk.ModuleID + "/" + p.Chunk.ChapterID, heading + "#" + anchor}
		if seen[key] {
			continue
		}
		seen[key] = true
		sources = append(sources, rag.Source{
			ChunkID:        p.Chunk.ID,
			ModuleID:       p.Chunk.ModuleID,
			ChapterID:      p.Chunk.ChapterID,
			SectionHeading: heading,
			Anchor:         anchor,
			Score:          p.Chunk.Score,
			Path:           p.Chunk.PagePath,
		})
	}
	return sources
}
