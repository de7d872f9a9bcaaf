// Package tutor decides, for each question, between an answer drawn from
// the book and one of the refusal spec's four refusals, and what of a
// generator's text the reader receives. Ask follows the spec's refusal
// flow step by step; nothing else in the project decides.
package tutor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/analysis"
)

var _ rag.Tutor = (*Tutor)(nil)

// EvidenceFinder finds the parts of a text that answer a question: the
// book's own evidence check, which package answer implements. With the
// extractive answerer it decides whether the chunks hold an answer; with
// a language model it only picks the passages of the fallback answer, and
// never vetoes chunks the retriever (embeddings, say) found.
type EvidenceFinder interface {
	// Read reads the question once for every stage of the ask: the
	// retriever (see QuestionRetriever) and the evidence finder take
	// what it returns and do not tokenize the text again.
	Read(question string) *analysis.Question
	// Evidence returns the passages of the chunks that answer the
	// question, or none. ctx is the request's: a sentence model's
	// embedding of the question stops with it.
	Evidence(ctx context.Context, question *analysis.Question, chunks []rag.ScoredChunk) []rag.Passage
	// SelectedEvidence returns the passages of the reader's selection that
	// answer the question, or none.
	SelectedEvidence(question *analysis.Question, selected string) []rag.Passage
	// Topic names the question's main subject, or "" when it has none.
	Topic(question *analysis.Question) string
}

// QuestionRetriever is a retriever that takes the question as the
// evidence finder read it (the built-in one does) instead of reading the
// text again. Other retrievers (embeddings) are given the text.
type QuestionRetriever interface {
	RetrieveQuestion(ctx context.Context, question *analysis.Question, k int) ([]rag.ScoredChunk, error)
}

// Config holds the refusal spec's tunables and the tutor's policy on a
// language model's text; DefaultConfig has their values.
type Config struct {
	// EmptyThreshold: below it on every chunk, nothing relevant was found.
	EmptyThreshold float64
	// ConfidentThreshold: a chunk at or above it may be answered from.
	ConfidentThreshold float64
	TopK               int
	// CourseName fills the course's name into the refusal messages; ""
	// leaves it out ("this course", "This textbook").
	CourseName string
	// FallbackOnGeneratorError answers extractively when the language
	// model fails or its text is rejected, instead of an openai_error.
	FallbackOnGeneratorError bool
	// OnOutsideKnowledge is what a model's text using an
	// outside-knowledge phrase becomes: "fallback" (as any rejected text)
	// or "refuse" (insufficient_context).
	OnOutsideKnowledge      string
	OutsideKnowledgePhrases []string
}

// DefaultConfig returns the spec's thresholds and top-k. It names no
// course: the course's name comes from the book being served.
func DefaultConfig() Config {
	return Config{
		EmptyThreshold:           0.5,
		ConfidentThreshold:       0.7,
		TopK:                     5,
		FallbackOnGeneratorError: true,
		OnOutsideKnowledge:       "fallback",
		OutsideKnowledgePhrases:  DefaultOutsideKnowledgePhrases,
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
	if c.OnOutsideKnowledge != "fallback" && c.OnOutsideKnowledge != "refuse" {
		return fmt.Errorf("on-outside-knowledge must be fallback or refuse, not %q", c.OnOutsideKnowledge)
	}
	return nil
}

// Tutor answers from the book or refuses. It is the only place that
// decides: retrievers only retrieve, generators only report what they
// produced, and the HTTP layer only carries the result.
type Tutor struct {
	Config    Config
	Retriever rag.Retriever
	Evidence  EvidenceFinder
	Scope     *Scope
	// Modules are the ingested book's module titles: the course's scope
	// as the out-of-scope refusal lists it.
	Modules []string
	// Extractive answers with the passages the book's evidence check
	// found: the answerer when LLM is nil, else the fallback.
	Extractive rag.Generator
	// LLM, when set, writes the answers, and its NOT_IN_CONTEXT reply
	// judges whether the confident chunks answer the question.
	LLM    rag.Generator
	Logger *slog.Logger
}

// Ask runs the refusal flow of the spec:
//
//	selected text?  yes: sufficient? no -> selected_text_insufficient; yes -> generate
//	                no:  retrieve top-k
//	                     nothing >= empty threshold     -> empty_retrieval
//	                     nothing >= confident threshold -> insufficient_context
//	                     out-of-scope pattern           -> out_of_scope
//	                     extractive, no passage answers -> insufficient_context
//	                     otherwise                      -> generate from the confident chunks
//
// The generator is called only on the last line of each branch. A refusal
// carries its Retrieval for the refusal log, which the caller writes once
// the reader has it (see RefusalLog). With the
// extractive answerer the book's evidence check judges answerability;
// with a language model its own judgement does (see answer).
func (t *Tutor) Ask(ctx context.Context, req rag.ChatRequest, stream rag.Stream) (rag.ChatResponse, error) {
	q := t.Evidence.Read(req.Question)
	if req.SelectedText != "" {
		evidence := t.Evidence.SelectedEvidence(q, req.SelectedText)
		if len(evidence) == 0 || junk(req.SelectedText) {
			return t.refuse(req, rag.SelectedTextInsufficient, nil, "")
		}
		exp := t.explain(q, req.SelectedText)
		g := rag.GenerateRequest{Question: req.Question, SelectedText: req.SelectedText, Evidence: evidence, Explanation: exp}
		return t.generate(ctx, req, g, stream)
	}

	chunks, err := t.retrieve(ctx, q)
	if err != nil {
		return rag.ChatResponse{}, fmt.Errorf("retrieve: %w", err)
	}
	if maxScore(chunks) < t.Config.EmptyThreshold {
		return t.refuse(req, rag.EmptyRetrieval, chunks, t.Evidence.Topic(q))
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
	evidence := t.Evidence.Evidence(ctx, q, relevant)
	if len(evidence) == 0 && t.LLM == nil {
		return t.refuse(req, rag.InsufficientContext, chunks, "")
	}
	return t.generate(ctx, req, rag.GenerateRequest{Question: req.Question, Context: relevant, Evidence: evidence}, stream)
}

// retrieve asks the retriever for the top-k chunks, with the question
// as read when it takes one.
func (t *Tutor) retrieve(ctx context.Context, q *analysis.Question) ([]rag.ScoredChunk, error) {
	if r, ok := t.Retriever.(QuestionRetriever); ok {
		return r.RetrieveQuestion(ctx, q, t.Config.TopK)
	}
	return t.Retriever.Retrieve(ctx, q.Text, t.Config.TopK)
}

func maxScore(chunks []rag.ScoredChunk) float64 {
	m := 0.0
	for _, c := range chunks {
		m = max(m, c.Score)
	}
	return m
}

// refuse builds the refusal for reason; topic is the question's subject
// that the empty-retrieval and out-of-scope messages name.
func (t *Tutor) refuse(req rag.ChatRequest, reason rag.RefusalReason, chunks []rag.ScoredChunk, topic string) (rag.ChatResponse, error) {
	var msg string
	switch reason {
	case rag.EmptyRetrieval:
		msg = EmptyRetrievalMessage(t.Config.CourseName, topic)
	case rag.InsufficientContext:
		msg = InsufficientContextMessage
	case rag.OutOfScope:
		msg = OutOfScopeMessage(t.Config.CourseName, t.Modules, topic)
	case rag.SelectedTextInsufficient:
		msg = SelectedTextInsufficientMessage
	}
	resp := rag.Refusal(reason, msg, req.SessionID)
	resp.Retrieval = &rag.Retrieval{Chunks: len(chunks)}
	if len(chunks) > 0 {
		m := maxScore(chunks)
		resp.Retrieval.MaxScore = &m
	}
	return resp, nil
}

// noAnswer is the refusal for context that turned out not to answer: the
// selection's, or the book's.
func (t *Tutor) noAnswer(req rag.ChatRequest, g rag.GenerateRequest) (rag.ChatResponse, error) {
	if g.SelectedText != "" {
		return t.refuse(req, rag.SelectedTextInsufficient, nil, "")
	}
	return t.refuse(req, rag.InsufficientContext, g.Context, "")
}

func (t *Tutor) generate(ctx context.Context, req rag.ChatRequest, g rag.GenerateRequest, stream rag.Stream) (rag.ChatResponse, error) {
	if t.LLM == nil {
		return t.extract(ctx, req, g, stream)
	}
	return t.answer(ctx, req, g, stream)
}

// extract answers with the book's passages, streamed as they are
// rendered: the evidence check has already accepted them.
func (t *Tutor) extract(ctx context.Context, req rag.ChatRequest, g rag.GenerateRequest, stream rag.Stream) (rag.ChatResponse, error) {
	sources := SourcesOf(append(slices.Clip(g.Evidence), g.Explanation.Passages()...))
	var emit func(string) error
	if stream != nil {
		if err := stream.Sources(sources); err != nil {
			return rag.ChatResponse{}, err
		}
		emit = stream.Delta
	}
	out, err := t.Extractive.Generate(ctx, g, emit)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return rag.ChatResponse{}, err
		}
		return rag.ChatResponse{}, fmt.Errorf("generate: %w", err)
	}
	return rag.ChatResponse{Answer: out.Text, Sources: sources, SessionID: req.SessionID}, nil
}

// streamError is a failed write to the reader, passed back through the
// generator: the reader is gone, nothing falls back.
type streamError struct{ err error }

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// answer asks the language model and checks its text like user input:
//
//	each sentence, before the reader sees it: no control characters, no
//	    NOT_IN_CONTEXT after text, no outside-knowledge phrase
//	the whole: finished (a "stop", never a cut stream), not empty
//	NOT_IN_CONTEXT as the reply         -> insufficient_context (selected_text_insufficient)
//	outside knowledge, policy "refuse"  -> insufficient_context
//	rejected, or the model failed       -> fallback: the extractive answer
//	                                       (no book passage answers: insufficient_context),
//	                                       or openai_error without fallback
//
// Streamed, only accepted sentences are released. When text has been
// released and what stands is something else, the stream ends with
// Replace carrying it, so the reader, the response and the history hold
// the same text.
func (t *Tutor) answer(ctx context.Context, req rag.ChatRequest, g rag.GenerateRequest, stream rag.Stream) (rag.ChatResponse, error) {
	sources := SourcesOf(g.Evidence)
	if len(g.Evidence) == 0 {
		sources = SourcesOf(passagesOf(g.Context))
	}
	sc := &screen{phrases: t.Config.OutsideKnowledgePhrases}
	released := false
	release := func(text string) error {
		if text == "" || stream == nil {
			return nil
		}
		if !released {
			released = true
			if err := stream.Sources(sources); err != nil {
				return &streamError{err}
			}
		}
		if err := stream.Delta(text); err != nil {
			return &streamError{err}
		}
		return nil
	}
	var emit func(string) error
	if stream != nil {
		emit = func(delta string) error {
			text, rej := sc.feed(delta)
			if rej != nil {
				return rej
			}
			return release(text)
		}
	}

	out, err := t.LLM.Generate(ctx, g, emit)
	var se *streamError
	var rej *rejection
	switch {
	case errors.As(err, &se):
		return rag.ChatResponse{}, se.err // the reader is gone: nothing stands in
	case errors.As(err, &rej):
	case err != nil && ctx.Err() != nil:
		return rag.ChatResponse{}, fmt.Errorf("generate: %w", err)
	case err == nil:
		var rest string
		if rest, rej = sc.end(out, stream == nil); rej == nil {
			if err := release(rest); err != nil {
				return rag.ChatResponse{}, errors.Unwrap(err)
			}
			return rag.ChatResponse{Answer: sc.released.String(), Sources: sources, SessionID: req.SessionID}, nil
		}
	}
	if rej != nil {
		err = rag.WrapError(rag.EOPENAI, "The language model's answer could not be used.", rej)
	}

	// Not accepted: decide what stands instead.
	var resp rag.ChatResponse
	switch {
	case rej != nil && rej.declined:
		resp, err = t.noAnswer(req, g)
	case rej != nil && rej.outside && t.Config.OnOutsideKnowledge == "refuse":
		resp, err = t.noAnswer(req, g)
	case !t.Config.FallbackOnGeneratorError:
		return rag.ChatResponse{}, fmt.Errorf("generate: %w", err)
	case len(g.Evidence) == 0:
		t.logger().Warn("language model's answer not used and no passage of the book answers; refusing", "err", err, "session_id", req.SessionID)
		resp, err = t.noAnswer(req, g)
	default:
		t.logger().Warn("language model's answer not used; answering extractively", "err", err, "session_id", req.SessionID)
		if released {
			resp, err = t.extract(ctx, req, g, nil)
		} else {
			resp, err = t.extract(ctx, req, g, stream)
		}
	}
	if err != nil || !released {
		return resp, err
	}
	if err := stream.Replace(resp.Answer, resp.Sources); err != nil {
		return rag.ChatResponse{}, err
	}
	return resp, nil
}

// passagesOf makes each chunk a passage of its own: the sources of an
// answer the model wrote from whole chunks.
func passagesOf(chunks []rag.ScoredChunk) []rag.Passage {
	out := make([]rag.Passage, len(chunks))
	for i := range chunks {
		out[i] = rag.Passage{Text: chunks[i].Text, Chunk: &chunks[i]}
	}
	return out
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
