// Package openai talks to any OpenAI-compatible API — OpenAI, Gemini's
// OpenAI-compatible endpoint, Ollama, vLLM, LM Studio, TEI — through the
// official openai-go SDK: embeddings for retrieval and Chat Completions for
// answers. Which service is only configuration: a base URL, a key and a
// model name.
package openai

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	sdk "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
)

// Config configures the client for embeddings or answers.
type Config struct {
	BaseURL string // e.g. https://api.openai.com/v1, http://localhost:11434/v1
	APIKey  string
	Model   string

	// Embeddings.
	Dimension int // the embedder's vector size (text-embedding-3-small: 1536)
	BatchSize int // texts per embeddings request

	// Retries on 429 and 5xx: at most MaxRetries more attempts, waiting
	// RetryBase·2^n with jitter, or what Retry-After says.
	MaxRetries int
	RetryBase  time.Duration
	// Timeout bounds one call (all its attempts); the caller's context
	// bounds it too.
	Timeout time.Duration

	// Answers.
	Temperature float64
	MaxTokens   int

	// HTTPClient, when set, makes the requests (tests, proxies).
	HTTPClient *http.Client
}

func (c Config) withDefaults(model string) Config {
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	if c.Model == "" {
		c.Model = model
	}
	if c.Dimension == 0 {
		c.Dimension = 1536
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 64
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	} else if c.MaxRetries == 0 {
		c.MaxRetries = 4
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 500 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	return c
}

// api is what the embedder and the generator share: their configuration
// (defaults applied), the SDK client and a count of the requests made.
type api struct {
	cfg    Config
	client sdk.Client
	calls  atomic.Int64
}

func (a *api) init(cfg Config, defaultModel string, opts ...option.RequestOption) {
	a.cfg = cfg.withDefaults(defaultModel)
	a.client = newClient(a.cfg, opts...)
}

// Calls counts the HTTP requests made, retries included.
func (a *api) Calls() int64 { return a.calls.Load() }

func newClient(c Config, extra ...option.RequestOption) sdk.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		option.WithMaxRetries(0), // retries are ours, with jitter and Retry-After
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return sdk.NewClient(append(opts, extra...)...)
}

// withRetry runs call until it succeeds, fails for good, or the retries
// run out. Rate limits (429) and server errors (5xx) are retried.
func withRetry(ctx context.Context, c Config, call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil {
			return nil
		}
		var apiErr *sdk.Error
		retryable := errors.As(err, &apiErr) && (apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500)
		if !retryable || attempt >= c.MaxRetries || ctx.Err() != nil {
			return err
		}
		wait := c.RetryBase << attempt
		wait = wait/2 + time.Duration(rand.Int64N(int64(wait)))
		if apiErr.Response != nil {
			if s, err := strconv.Atoi(apiErr.Response.Header.Get("Retry-After")); err == nil && s >= 0 {
				wait = time.Duration(s) * time.Second
			}
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
