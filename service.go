package rag

import (
	"context"
	"slices"
	"time"
)

// Retriever finds the chunks of the book closest to a question. Scores
// lie in [0, 1] with the refusal spec's meaning. Implementations return
// the top k whatever their scores: the refusal gates need the low ones too.
type Retriever interface {
	Retrieve(ctx context.Context, question string, k int) ([]ScoredChunk, error)
}

// Embedder turns texts into vectors of a fixed dimension: an embeddings
// API (package openai) or the sentence model read in Go (package bert).
// The dense retriever and the answerer's meaning features share it.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimension() int
	// ID names the model and every setting that changes its vectors:
	// vectors kept under one ID are that embedder's (package vectors).
	ID() string
}

// QueryEmbedder is an Embedder that embeds a reader's question apart
// from the book's texts (package vectors keeps the book's on disk and a
// question's in memory only). Whoever embeds a question uses Query when
// the embedder has it.
type QueryEmbedder interface {
	Embedder
	Query(ctx context.Context, question string) ([]float32, error)
}

// VectorStore keeps chunk vectors and finds the nearest ones.
type VectorStore interface {
	// Replace makes the store hold exactly these chunks (upserting by
	// stable id and deleting chunks that no longer exist).
	Replace(ctx context.Context, chunks []Chunk, vectors [][]float32) error
	// Search returns the k nearest chunks with cosine scores.
	Search(ctx context.Context, vector []float32, k int) ([]ScoredChunk, error)
}

// Passage is a piece of evidence for an answer: text taken verbatim from a
// chunk (or from the reader's selection, where Chunk is nil), with the
// heading it sits under.
type Passage struct {
	Text    string
	Heading Heading
	Chunk   *ScoredChunk
	// Paragraph numbers the paragraph of its chunk or selection that a
	// sentence comes from, from 1 (0: not known, or not prose), so that a
	// renderer runs on the sentences of one paragraph and keeps the break
	// between two.
	Paragraph int
}

// GenerateRequest is what a Generator answers from. Evidence is never
// empty: the tutor refuses before it would call a generator without it.
type GenerateRequest struct {
	Question     string
	SelectedText string
	// Context is the confident chunks (score >= the confidence threshold),
	// empty in selected-text mode.
	Context  []ScoredChunk
	Evidence []Passage
	// Explanation, in selected-text mode for a question that only points
	// at the selection, is what the rest of the book adds to it (possibly
	// nothing); nil for any other question. It is quoted after the
	// evidence, never instead of it.
	Explanation *Explanation
}

// FinishStop is the finish state of a text the generator ended on
// purpose. Anything else (a model's "length" or "content_filter", or
// FinishCut) marks a text that stopped part-way.
const (
	FinishStop = "stop"
	// FinishCut: the generator's output ended without it saying so (a
	// stream closed before its end marker).
	FinishCut = "cut"
)

// NotInContext is the whole reply a language model is told to give when
// the passages do not answer the question.
const NotInContext = "NOT_IN_CONTEXT"

// Generated is what a generator produced, reported as it came: the tutor
// alone decides whether it becomes the answer.
type Generated struct {
	Text string
	// Finish is how the text ended: FinishStop, FinishCut, or the
	// model's own finish reason.
	Finish string
}

// Generator writes an answer from evidence. emit, when not nil, receives
// the text as it is produced; an error from emit ends generation and is
// returned as is.
type Generator interface {
	Generate(ctx context.Context, req GenerateRequest, emit func(delta string) error) (Generated, error)
}

// Tutor answers a reader's question or refuses, following the refusal spec.
// The request must already be normalized (ChatRequest.Normalize) and carry
// a session id. stream may be nil.
type Tutor interface {
	Ask(ctx context.Context, req ChatRequest, stream Stream) (ChatResponse, error)
}

// Stream receives an answer while it is produced: Sources once, before any
// text, then the answer text in deltas. When the tutor withdraws text it
// had sent (the language model went wrong after its first sentences),
// Replace ends the stream with the text and sources that stand instead:
// the fallback answer or the refusal. A refusal decided before any text
// produces no stream calls; it only comes back as the returned
// ChatResponse. What the reader was sent always equals that response.
type Stream interface {
	Sources(sources []Source) error
	Delta(text string) error
	Replace(text string, sources []Source) error
}

// Message is one turn of a chat session as stored in history.
type Message struct {
	ID            string         `json:"id"`
	SessionID     string         `json:"session_id"`
	Role          string         `json:"role"` // "user" or "assistant"
	Content       string         `json:"content"`
	Sources       []Source       `json:"sources"`
	WasRefusal    bool           `json:"was_refusal"`
	RefusalReason *RefusalReason `json:"refusal_reason"`
	// QuestionID is, on an answer, the id of the question it answers.
	// Empty on a question.
	QuestionID string    `json:"question_id,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
}

// History stores chat sessions and their messages.
type History interface {
	// AppendExchange writes the question and its response in one
	// transaction: both or neither.
	AppendExchange(ctx context.Context, sessionID string, question Message, answer Message) error
	// Messages returns a session's messages in the order they were
	// written (see PageQuery); an *Error with code
	// ENOTFOUND when the session does not exist. It holds the whole
	// session in memory: the API reads MessagesPage instead.
	Messages(ctx context.Context, sessionID string) ([]Message, error)
	// MessagesPage returns one page of a session's messages, read with a
	// LIMIT so that memory does not grow with the session. Errors: an
	// ENOTFOUND *Error for an unknown session, EINVALID for a bad query
	// (a limit out of range, both cursors, a cursor that is not a message
	// of the session).
	MessagesPage(ctx context.Context, sessionID string, q PageQuery) (MessagePage, error)
	// CheckSessionRoom returns an ESESSIONFULL *Error when the store caps
	// a session's length and the session has no room for one more
	// exchange, which AppendExchange would then refuse (it checks again,
	// in its transaction). Asked before the work of an answer, so that a
	// full session costs no language-model call.
	CheckSessionRoom(ctx context.Context, sessionID string) error
	Ping(ctx context.Context) error
	Close() error
}

// Limits on one page of a session's messages.
const (
	DefaultMessagesPage = 100
	MaxMessagesPage     = 500
)

// PageQuery selects a page of a session's messages in their listing order:
// the order in which their exchanges were committed, each question just
// before its answer. Not the order of their dates: a message is dated when
// its question arrived, and a question answered slowly is committed after
// ones asked later; listed by date it would appear behind a reader who has
// paged past them. In commit order nothing is ever added behind a cursor,
// so a reader following a growing session with After sees every message
// once. Without a cursor it is the session's latest Limit messages; Before
// is the Limit messages just before that message, After those just after
// it. At most one cursor is set.
type PageQuery struct {
	Limit  int // 1 to MaxMessagesPage
	Before string
	After  string
}

// Check validates the query: an EINVALID *Error naming the parameter.
func (q PageQuery) Check() error {
	if q.Limit < 1 || q.Limit > MaxMessagesPage {
		e := fieldError(EINVALID, "limit", "limit must be between 1 and %d", MaxMessagesPage)
		e.Details["max"] = MaxMessagesPage
		return e
	}
	if q.Before != "" && q.After != "" {
		return fieldError(EINVALID, "before", "give before or after, not both")
	}
	for _, c := range []struct{ name, id string }{{"before", q.Before}, {"after", q.After}} {
		if _, ok := ParseUUID(c.id); c.id != "" && !ok {
			return fieldError(EINVALID, c.name, "%s must be a message id (a UUID)", c.name)
		}
	}
	return nil
}

// Cursor returns the query's cursor, a message id, and the parameter that
// named it; "" when the page is the session's latest.
func (q PageQuery) Cursor() (field, id string) {
	if q.After != "" {
		return "after", q.After
	}
	return "before", q.Before
}

// CursorNotInSession is the error of a cursor that is no message of the
// session: an EINVALID *Error naming the parameter.
func CursorNotInSession(field, sessionID string) *Error {
	return fieldError(EINVALID, field, "%s is not a message of session %s", field, sessionID)
}

// MessagePage is one page of a session's messages, oldest first.
type MessagePage struct {
	Messages []Message
	// Older and Newer say whether the session has messages before the
	// page's first and after its last: where the next page lies.
	Older, Newer bool
}

// TrimPage makes a page from the at most Limit+1 messages a store read
// for q, nearest the cursor first when reading backwards (no cursor or
// Before): the extra message only says that there are more.
func TrimPage(msgs []Message, q PageQuery) MessagePage {
	more := len(msgs) > q.Limit
	if more {
		msgs = msgs[:q.Limit]
	}
	if q.After != "" {
		return MessagePage{Messages: msgs, Older: true, Newer: more}
	}
	slices.Reverse(msgs)
	return MessagePage{Messages: msgs, Older: more, Newer: q.Before != ""}
}

// HistoryPruner deletes old chat history, for a retention period.
type HistoryPruner interface {
	// DeleteSessionsBefore deletes, with their messages, the sessions
	// started before before that have no message since, and returns how
	// many it deleted. A session still in
	// use keeps its old messages: a conversation goes whole or not at all.
	DeleteSessionsBefore(ctx context.Context, before time.Time) (int, error)
}

// ChunkFilter selects chunks for the content endpoint.
type ChunkFilter struct {
	ModuleID  string
	ChapterID string // optional
}

// ChunkLister lists the ingested chunks of a module, in book order.
type ChunkLister interface {
	ListChunks(ctx context.Context, f ChunkFilter) ([]Chunk, error)
}
