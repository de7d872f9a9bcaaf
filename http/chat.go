package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/textbook-rag/rag"
)

// decodeChat reads and validates a chat request: application/json (UTF-8
// charset only), at most MaxBodyBytes, valid UTF-8, one JSON object whose
// unknown fields are ignored, then ChatRequest.Normalize. A missing
// session id is replaced by a new one, and fresh says so: a session this
// request opens has room, and no store needs asking.
func (s *Server) decodeChat(w http.ResponseWriter, r *http.Request) (req rag.ChatRequest, fresh bool, err error) {
	body, err := s.readBody(w, r)
	if err != nil {
		return req, false, err
	}
	var in struct {
		Question     *string `json:"question"`
		SelectedText *string `json:"selected_text"`
		SessionID    *string `json:"session_id"`
		RequestID    *string `json:"request_id"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		return req, false, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, false, rag.Errorf(rag.EINVALID, "the request body must hold a single JSON object")
	}
	if in.Question != nil {
		req.Question = *in.Question
	}
	if in.SelectedText != nil {
		req.SelectedText = *in.SelectedText
	}
	if in.SessionID != nil {
		req.SessionID = *in.SessionID
	}
	if in.RequestID != nil {
		req.RequestID = *in.RequestID
	}
	if err := req.Normalize(); err != nil {
		return req, false, err
	}
	// A request id never leads to a session: one that names none opens a
	// new one, so a replayed request id finds nothing (see rag.QuestionID).
	if req.SessionID == "" {
		req.SessionID = s.NewID()
		fresh = true
	}
	return req, fresh, nil
}

// readBody reads a JSON request body: application/json (UTF-8 charset
// only), at most MaxBodyBytes, valid UTF-8.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return nil, rag.Errorf(EMEDIATYPE, "Content-Type must be application/json")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return nil, rag.Errorf(EMEDIATYPE, "the only supported charset is utf-8")
	}
	limit := s.cfg.MaxBodyBytes
	tooLarge := func() error {
		e := rag.Errorf(ETOOLARGE, "the request body is larger than %d bytes", limit)
		e.Details = map[string]any{"max_bytes": limit}
		return e
	}
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge()
		}
		if isCanceled(r, err) {
			return nil, err
		}
		return nil, rag.WrapError(rag.EINVALID, "the request body could not be read", err)
	}
	if !utf8.Valid(body) {
		return nil, rag.Errorf(rag.EINVALID, "the request body must be valid UTF-8")
	}
	return body, nil
}

// jsonError explains a decoding failure without echoing the body.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return rag.Errorf(rag.EINVALID, "the request body is empty; send a JSON object")
	case errors.As(err, &syn):
		e := rag.Errorf(rag.EINVALID, "the request body is not valid JSON (at byte %d)", syn.Offset)
		e.Details = map[string]any{"offset": syn.Offset}
		return e
	case errors.As(err, &typ):
		if typ.Field == "" {
			return rag.Errorf(rag.EINVALID, "the request body must be a JSON object")
		}
		e := invalid(typ.Field, "%s must be a string", typ.Field)
		return e
	default:
		return rag.Errorf(rag.EINVALID, "the request body is not valid JSON")
	}
}

// invalid is an EINVALID error about one field of the request, named in
// its details so that clients need not read the message.
func invalid(field, format string, args ...any) *rag.Error {
	e := rag.Errorf(rag.EINVALID, format, args...)
	e.Details = map[string]any{"field": field}
	return e
}

// limitError rejects a ?limit= that is not a whole number from 1 to max.
func limitError(max int) *rag.Error {
	e := invalid("limit", "limit must be a whole number from 1 to %d", max)
	e.Details["max"] = max
	return e
}

func (s *Server) ready() error {
	if s.Tutor == nil || s.History == nil {
		return rag.Errorf(rag.EUNAVAILABLE, "The tutor is not available.")
	}
	return nil
}

// startChat is the start both chat handlers share: the tutor must be
// ready, the request well formed, and a session that is not new must have
// room for another exchange. It has written the error when ok is false.
func (s *Server) startChat(w http.ResponseWriter, r *http.Request) (req rag.ChatRequest, fresh, ok bool) {
	if err := s.ready(); err != nil {
		s.writeError(w, r, err)
		return req, false, false
	}
	req, fresh, err := s.decodeChat(w, r)
	if err == nil && !fresh {
		err = s.checkRoom(r, req.SessionID)
	}
	if err != nil {
		s.writeError(w, r, err)
		return req, fresh, false
	}
	return req, fresh, true
}

// handleChat answers POST /api/chat.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	req, _, ok := s.startChat(w, r)
	if !ok {
		return
	}
	asked := s.Now()
	resp, err := s.Tutor.Ask(r.Context(), req, nil)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp = s.settle(resp)
	resp, replayed, err := s.record(r, req, resp, asked)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !replayed {
		s.logRefusal(req, resp)
	}
	writeJSON(w, http.StatusOK, resp)
}

// logRefusal counts a recorded refusal and writes it to the refusal log,
// so that neither holds a refusal the reader never got; a log write that
// fails is counted, and the refusal still goes out.
func (s *Server) logRefusal(req rag.ChatRequest, resp rag.ChatResponse) {
	if !resp.WasRefusal || resp.RefusalReason == nil {
		return
	}
	s.Metrics.ObserveRefusal(*resp.RefusalReason)
	if s.Refusals == nil {
		return
	}
	if err := s.Refusals.Log(req, resp); err != nil {
		s.Metrics.ObserveRefusalLogError()
	}
}

// settle names the answer's message (so that the reader can rate it) and
// gives every response the same JSON shape (sources an array, never null).
func (s *Server) settle(resp rag.ChatResponse) rag.ChatResponse {
	resp.MessageID = s.NewID()
	if resp.Sources == nil {
		resp.Sources = []rag.Source{}
	}
	return resp
}

// record writes the exchange to history in one AppendExchange call, which
// creates the session when it is new: a failed write leaves nothing. A
// request with a request id whose exchange is stored already (a retry of
// one whose answer was lost, or that got a 503 though its write went
// through) is not stored again: record returns the stored exchange, and
// replayed.
func (s *Server) record(r *http.Request, req rag.ChatRequest, resp rag.ChatResponse, asked time.Time) (_ rag.ChatResponse, replayed bool, _ error) {
	q := rag.Message{
		ID:        s.NewID(),
		SessionID: req.SessionID,
		Role:      "user",
		Content:   req.Question,
		Sources:   []rag.Source{},
		CreatedAt: asked.UTC(),
	}
	a := rag.Message{
		ID:            resp.MessageID,
		SessionID:     req.SessionID,
		Role:          "assistant",
		Content:       resp.Answer,
		Sources:       resp.Sources,
		WasRefusal:    resp.WasRefusal,
		RefusalReason: resp.RefusalReason,
		CreatedAt:     s.Now().UTC(),
	}
	if !a.CreatedAt.After(q.CreatedAt) {
		a.CreatedAt = q.CreatedAt.Add(time.Microsecond)
	}
	if req.RequestID != "" {
		q.ID = rag.QuestionID(s.Book, req.SessionID, req.RequestID)
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
	defer cancel()
	err := s.History.AppendExchange(ctx, req.SessionID, q, a)
	if err != nil && req.RequestID != "" {
		// The question's id is taken: by this request's earlier try?
		if stored, ok, serr := s.storedExchange(r, req, q.ID); serr != nil || ok {
			return stored, ok, serr
		}
	}
	if err != nil {
		if rag.ErrorCode(err) == rag.ESESSIONFULL {
			// The session filled while this question was answered.
			return resp, false, err
		}
		return resp, false, historyError(err)
	}
	return resp, false, nil
}

// storedExchange finds, in the request's session, the exchange stored
// under the question id qid; ok is false when there is none. A request id
// reused for another question is an error.
func (s *Server) storedExchange(r *http.Request, req rag.ChatRequest, qid string) (resp rag.ChatResponse, ok bool, err error) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
	defer cancel()
	msgs, err := s.History.Messages(ctx, req.SessionID)
	if err != nil {
		return resp, false, nil // the write's own error stands
	}
	asked := false
	for _, m := range msgs {
		switch {
		case m.ID == qid:
			if m.Content != req.Question {
				e := invalid("request_id", "request_id %s was already used for another question; send a new one with each question", req.RequestID)
				return resp, false, e
			}
			asked = true
		case asked && m.QuestionID == qid:
			sources := m.Sources
			if sources == nil {
				sources = []rag.Source{}
			}
			return rag.ChatResponse{Answer: m.Content, WasRefusal: m.WasRefusal, Sources: sources, RefusalReason: m.RefusalReason,
				SessionID: req.SessionID, MessageID: m.ID}, true, nil
		}
	}
	return resp, false, nil
}

// checkRoom refuses a question to a session that is full before any
// work is done on it: a full session costs no language-model call. The
// store checks again when it writes, so a session that fills meanwhile
// is refused then.
func (s *Server) checkRoom(r *http.Request, sessionID string) error {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.HistoryTimeout)
	defer cancel()
	if err := s.History.CheckSessionRoom(ctx, sessionID); err != nil {
		if rag.ErrorCode(err) == rag.ESESSIONFULL {
			return err
		}
		return historyError(err)
	}
	return nil
}

// historyError keeps cancellation visible, makes a missed deadline 503
// unavailable, keeps a store's own unavailable (unreachable, disk full)
// and hides everything else behind internal_error: an answer
// that was not recorded is never returned.
func historyError(err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return rag.WrapError(rag.EUNAVAILABLE, "The chat history did not answer in time; please try again.", err)
	case rag.ErrorCode(err) == rag.EUNAVAILABLE:
		return err
	}
	return rag.WrapError(rag.EINTERNAL, "The answer could not be saved to the chat history.", err)
}

// handleChatStream answers POST /api/chat/stream with Server-Sent Events:
// "sources" once, "delta" events with {"text"}, then "done" with the full
// ChatResponse; a refusal is a single "done". When the tutor withdraws
// text it had sent, a "replace" event {"text", "sources"} carries what
// stands instead, before "done". Any error before the first event is an
// ordinary JSON error response; after it, an "error" event with the error
// body ends the stream.
func (s *Server) handleChatStream(w http.ResponseWriter, r *http.Request) {
	req, fresh, ok := s.startChat(w, r)
	if !ok {
		return
	}
	if !fresh && req.RequestID != "" {
		// A request id reused for another question is refused before the
		// stream starts, with the status the plain endpoint gives it, not
		// as an error event after the answer.
		if _, _, err := s.storedExchange(r, req, rag.QuestionID(s.Book, req.SessionID, req.RequestID)); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), r: r}
	markStream(r, sw)
	asked := s.Now()
	resp, err := s.Tutor.Ask(r.Context(), req, sw)
	if err == nil && sw.broken() {
		// The tutor ignored a failed write: the reader never saw this
		// answer, so it is not recorded.
		err = sw.failure()
	}
	if err == nil {
		resp = s.settle(resp)
		if !resp.WasRefusal {
			err = sw.complete(resp)
		}
	}
	replayed := false
	if err == nil {
		resp, replayed, err = s.record(r, req, resp, asked)
	}
	if err != nil {
		s.streamError(w, r, sw, err)
		return
	}
	if !replayed {
		s.logRefusal(req, resp)
	}
	if err := sw.event("done", resp); err != nil {
		s.clientGone(r, err)
	}
}

func (s *Server) streamError(w http.ResponseWriter, r *http.Request, sw *sseWriter, err error) {
	if sw.broken() || (isCanceled(r, err) && !shuttingDown(r)) {
		s.clientGone(r, err)
		return
	}
	if sw.plain() {
		s.writeError(w, r, err)
		return
	}
	if shuttingDown(r) {
		err = rag.WrapError(rag.EUNAVAILABLE, rag.ErrorMessage(errShuttingDown), err)
	}
	body, status := errorBody(err)
	s.logError(r, err, status)
	if err := sw.event("error", body); err != nil {
		s.clientGone(r, err)
	}
}

// sseWriter is the rag.Stream of a streaming response. The response
// header is written with the first event, so errors before it can still
// be plain JSON responses.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	r  *http.Request

	mu          sync.Mutex
	started     bool
	sentSources bool
	sentText    bool
	finished    bool  // done or error sent: nothing may follow
	err         error // a failed write (the client is gone), or no more events
}

// errNoEvents stops a stream's events: the response is a plain one, or
// the shutdown ended the stream.
var errNoEvents = errors.New("the stream is closed to events")

func (sw *sseWriter) Sources(sources []rag.Source) error {
	if sources == nil {
		sources = []rag.Source{}
	}
	sw.mu.Lock()
	sent := sw.sentSources
	sw.sentSources = true
	sw.mu.Unlock()
	if sent {
		return nil
	}
	return sw.event("sources", sources)
}

func (sw *sseWriter) Delta(text string) error {
	if text == "" {
		return nil
	}
	sw.mu.Lock()
	needSources := !sw.sentSources
	sw.sentSources = true
	sw.sentText = true
	sw.mu.Unlock()
	if needSources {
		if err := sw.event("sources", []rag.Source{}); err != nil {
			return err
		}
	}
	return sw.event("delta", map[string]string{"text": text})
}

// Replace withdraws the text sent so far: the reader's text becomes text.
func (sw *sseWriter) Replace(text string, sources []rag.Source) error {
	if sources == nil {
		sources = []rag.Source{}
	}
	sw.mu.Lock()
	sw.sentSources, sw.sentText = true, true
	sw.mu.Unlock()
	return sw.event("replace", struct {
		Text    string       `json:"text"`
		Sources []rag.Source `json:"sources"`
	}{text, sources})
}

// complete sends what a tutor that did not stream left out, so that every
// answer has the sources event and its text before done.
func (sw *sseWriter) complete(resp rag.ChatResponse) error {
	if err := sw.Sources(resp.Sources); err != nil {
		return err
	}
	sw.mu.Lock()
	sent := sw.sentText
	sw.mu.Unlock()
	if !sent {
		return sw.Delta(resp.Answer)
	}
	return nil
}

func (sw *sseWriter) event(name string, v any) error {
	data, err := marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.err != nil {
		return sw.err
	}
	if err := sw.r.Context().Err(); err != nil {
		sw.err = err
		return err
	}
	if !sw.started {
		sw.start()
	}
	if _, err := fmt.Fprintf(sw.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		sw.err = err
		return err
	}
	if err := sw.rc.Flush(); err != nil {
		sw.err = err
		return err
	}
	if name == "done" || name == "error" {
		sw.finished = true
	}
	return nil
}

// start sends the stream's header; sw.mu is held.
func (sw *sseWriter) start() {
	h := sw.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Del("Content-Length")
	sw.w.WriteHeader(http.StatusOK)
	sw.started = true
}

// plain reports whether the stream has sent nothing, and if so closes it
// to events: the caller answers with a plain JSON response instead.
func (sw *sseWriter) plain() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.started || sw.err != nil {
		return false
	}
	sw.err = errNoEvents
	return true
}

// abort ends a stream the shutdown will not wait for with an error event
// (data is its body), the stream's header first if nothing was sent yet;
// later events are dropped. A stream that has ended is left alone.
func (sw *sseWriter) abort(data []byte) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if sw.err != nil || sw.finished {
		return
	}
	sw.err, sw.finished = errNoEvents, true
	if !sw.started {
		sw.start()
	}
	if _, err := fmt.Fprintf(sw.w, "event: error\ndata: %s\n\n", data); err == nil {
		_ = sw.rc.Flush()
	}
}

func (sw *sseWriter) failure() error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.err
}

func (sw *sseWriter) broken() bool {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.err != nil
}

var _ rag.Stream = (*sseWriter)(nil)
