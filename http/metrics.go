package http

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/textbook-rag/rag"
)

// Metrics holds the server's Prometheus collectors in a registry of its
// own (never the global default one), so that many servers can coexist.
//
//	http_requests_total{route,method,status}
//	http_request_duration_seconds{route}   (histogram)
//	refusals_total{reason}
//	generator_calls_total
//	embedder_calls_total
//	rate_limited_total{route}
//	feedback_total{rating}
//	refusal_log_errors_total
//	log_write_errors_total                 (with CountLogWriteErrors)
//
// plus the Go runtime and process collectors.
type Metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	refusals *prometheus.CounterVec
	// refusalCounts are the refusals' series, made once (read-only after).
	refusalCounts map[rag.RefusalReason]prometheus.Counter
	generator     prometheus.Counter
	embedder      prometheus.Counter
	rateLimited   *prometheus.CounterVec
	feedback      *prometheus.CounterVec
	refusalLogErr prometheus.Counter

	// children caches the series a request updates, by labels. A
	// CounterVec looks a series up under a read lock whose counter every
	// core writes; a sync.Map read of an existing key writes nothing
	// shared, so requests on different cores do not queue here.
	children sync.Map // requestLabels -> requestSeries
}

type requestLabels struct {
	route, method string
	status        int
}

type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// NewMetrics returns a Metrics with a fresh registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total",
			Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "http_request_duration_seconds",
			Help:    "HTTP request duration by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "refusals_total",
			Help: "Chat refusals by reason.",
		}, []string{"reason"}),
		generator: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "generator_calls_total",
			Help: "Calls to the answer generator.",
		}),
		embedder: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "embedder_calls_total",
			Help: "Calls to the embedder.",
		}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rate_limited_total",
			Help: "Requests rejected by the rate limiter, by route pattern.",
		}, []string{"route"}),
		feedback: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedback_total",
			Help: "Readers' ratings of answers stored (a changed rating counts again), by rating.",
		}, []string{"rating"}),
		refusalLogErr: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "refusal_log_errors_total",
			Help: "Refusals the refusal log failed to write (a full disk, say).",
		}),
	}
	for _, r := range rag.Ratings {
		m.feedback.WithLabelValues(string(r))
	}
	m.refusalCounts = map[rag.RefusalReason]prometheus.Counter{}
	for _, reason := range rag.RefusalReasons {
		m.refusalCounts[reason] = m.refusals.WithLabelValues(string(reason))
	}
	m.registry.MustRegister(m.requests, m.duration, m.refusals, m.generator, m.embedder, m.rateLimited, m.feedback, m.refusalLogErr,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registerer lets other packages add their own collectors.
func (m *Metrics) Registerer() prometheus.Registerer { return m.registry }

// Gatherer is what /metrics exposes.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.registry }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// ObserveRefusal counts a refusal.
func (m *Metrics) ObserveRefusal(reason rag.RefusalReason) {
	if c, ok := m.refusalCounts[reason]; ok {
		c.Inc()
		return
	}
	m.refusals.WithLabelValues(string(reason)).Inc()
}

// ObserveRefusalLogError counts a refusal the refusal log failed to write.
func (m *Metrics) ObserveRefusalLogError() { m.refusalLogErr.Inc() }

// CountLogWriteErrors exposes as log_write_errors_total the count of
// writes to stderr (log lines: access, application, and refusal lines
// when the refusal log is stderr) that failed or were cut short, which
// failures reports. It is an error to call it twice.
func (m *Metrics) CountLogWriteErrors(failures func() int64) error {
	return m.registry.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "log_write_errors_total",
		Help: "Log lines the server failed to write to stderr whole (a full disk, say).",
	}, func() float64 { return float64(failures()) }))
}

// ObserveFeedback counts a stored rating.
func (m *Metrics) ObserveFeedback(r rag.Rating) {
	m.feedback.WithLabelValues(string(r)).Inc()
}

func (m *Metrics) observeRequest(route, method string, status int, d time.Duration) {
	k := requestLabels{route, method, status}
	v, ok := m.children.Load(k)
	if !ok {
		v, _ = m.children.LoadOrStore(k, requestSeries{
			count:    m.requests.WithLabelValues(route, method, strconv.Itoa(status)),
			duration: m.duration.WithLabelValues(route),
		})
	}
	series := v.(requestSeries)
	series.count.Inc()
	series.duration.Observe(d.Seconds())
}

// CountGenerator returns g counting each Generate call in
// generator_calls_total.
func (m *Metrics) CountGenerator(g rag.Generator) rag.Generator {
	return countingGenerator{g: g, c: m.generator}
}

// CountEmbedder returns e counting each Embed call in
// embedder_calls_total.
func (m *Metrics) CountEmbedder(e rag.Embedder) rag.Embedder {
	if q, ok := e.(rag.QueryEmbedder); ok {
		return countingQuerier{countingEmbedder{e: e, c: m.embedder}, q}
	}
	return countingEmbedder{e: e, c: m.embedder}
}

// countingQuerier counts a QueryEmbedder and keeps its questions apart
// from the book's texts too.
type countingQuerier struct {
	countingEmbedder
	q rag.QueryEmbedder
}

func (e countingQuerier) Query(ctx context.Context, question string) ([]float32, error) {
	e.c.Inc()
	return e.q.Query(ctx, question)
}

type countingGenerator struct {
	g rag.Generator
	c prometheus.Counter
}

func (g countingGenerator) Generate(ctx context.Context, req rag.GenerateRequest, emit func(string) error) (rag.Generated, error) {
	g.c.Inc()
	return g.g.Generate(ctx, req, emit)
}

type countingEmbedder struct {
	e rag.Embedder
	c prometheus.Counter
}

func (e countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.c.Inc()
	return e.e.Embed(ctx, texts)
}

func (e countingEmbedder) Dimension() int { return e.e.Dimension() }

func (e countingEmbedder) ID() string { return e.e.ID() }
