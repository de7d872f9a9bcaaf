package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/eval"
	"github.com/textbook-rag/rag/qdrant/qdranttest"
)

// fakeOpenAI speaks the OpenAI HTTP API: embeddings are hashed bags of
// words (similar texts get similar vectors), chat replies quote the first
// passage. It counts the calls of each kind.
type fakeOpenAI struct {
	embedCalls atomic.Int64
	chatCalls  atomic.Int64
}

const fakeDim = 64

func bagVector(text string) []float64 { return bagVectorDim(text, fakeDim) }

// bagVectorDim is a hashed bag of the text's words in dim dimensions.
func bagVectorDim(text string, dim int) []float64 {
	v := make([]float64, dim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if len(w) < 3 {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dim)]++
	}
	return v
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	b, _ := io.ReadAll(r.Body)
	json.Unmarshal(b, &body)
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/embeddings":
		f.embedCalls.Add(1)
		var data []string
		for i, in := range body["input"].([]any) {
			vec, _ := json.Marshal(bagVector(in.(string)))
			data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, vec))
		}
		fmt.Fprintf(w, `{"object":"list","model":"m","data":[%s],"usage":{"prompt_tokens":1,"total_tokens":1}}`, strings.Join(data, ","))
	case "/v1/chat/completions":
		f.chatCalls.Add(1)
		msgs := body["messages"].([]any)
		user := msgs[1].(map[string]any)["content"].(string)
		answer := "From the passages: " + strings.SplitN(user, "\n", 3)[1]
		if body["stream"] == true {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n", answer)
			return
		}
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}]}`, answer)
	default:
		http.NotFound(w, r)
	}
}

// TestProductionInvariant runs the question sets through the production
// configuration — OpenAI-compatible embeddings and LLM, Qdrant — against
// in-process servers: no LLM call on any refusal, one LLM call per answer,
// one embedding call per question that retrieves.
func TestProductionInvariant(t *testing.T) {
	forEachQuestionSet(t, func(t *testing.T, docs string, qs []eval.Question) {
		api := &fakeOpenAI{}
		srv := httptest.NewServer(api)
		defer srv.Close()
		fq, qurl := qdranttest.Start(t)

		cfg := DefaultConfig()
		cfg.Docs = docs
		cfg.Data = t.TempDir()
		cfg.RefusalLog = os.DevNull
		cfg.Embedder, cfg.Generator = "openai", "openai"
		cfg.OpenAIBaseURL, cfg.OpenAIAPIKey = srv.URL+"/v1", "test-key"
		cfg.EmbeddingDim = fakeDim
		cfg.QdrantURL = qurl
		// Bag-of-words cosines run low: thresholds from `calibrate`.
		cfg.Tutor.EmptyThreshold, cfg.Tutor.ConfidentThreshold = 0.3, 0.45
		cfg.Tutor.FallbackOnGeneratorError = false
		app := NewMain(cfg, io.Discard)
		if err := app.Open(context.Background(), true); err != nil {
			t.Fatal(err)
		}
		defer app.Close()
		if len(fq.Points) == 0 {
			t.Fatal("the book was not indexed into Qdrant")
		}
		answers, refusals := 0, 0
		for _, q := range qs {
			req := rag.ChatRequest{Question: q.Question, SelectedText: q.SelectedText, SessionID: uuid.NewString()}
			req.Normalize()
			chat0, emb0 := api.chatCalls.Load(), api.embedCalls.Load()
			resp, err := app.Tutor.Ask(context.Background(), req, nil)
			if err != nil {
				t.Fatalf("%s: %v", q.ID, err)
			}
			chats, embeds := api.chatCalls.Load()-chat0, api.embedCalls.Load()-emb0
			wantEmbeds := int64(1)
			if q.SelectedText != "" {
				wantEmbeds = 0
			}
			if embeds != wantEmbeds {
				t.Errorf("%s: %d embedding calls, want %d", q.ID, embeds, wantEmbeds)
			}
			if resp.WasRefusal {
				refusals++
				if chats != 0 {
					t.Errorf("%s: refused (%s) after %d LLM calls", q.ID, *resp.RefusalReason, chats)
				}
			} else {
				answers++
				if chats != 1 || !strings.HasPrefix(resp.Answer, "From the passages:") {
					t.Errorf("%s: answer %q after %d LLM calls", q.ID, resp.Answer, chats)
				}
			}
		}
		if answers == 0 || refusals == 0 {
			t.Fatalf("%d answers, %d refusals: the test needs both", answers, refusals)
		}
		if fq.Thresholds != 0 {
			t.Error("a search sent Qdrant a score threshold")
		}
		t.Logf("%d questions: %d answers with one LLM call each, %d refusals with none", len(qs), answers, refusals)
	})
}

func TestCosineSanity(t *testing.T) {
	a, b := bagVector("a topic is a named channel"), bagVector("what is a topic channel")
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if c := dot / math.Sqrt(na*nb); c < 0.5 {
		t.Errorf("similar texts have cosine %.2f", c)
	}
}
