package operate

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are what the operator exports for alerting.
type Metrics struct {
	reg *prometheus.Registry

	l1Stage        prometheus.Gauge
	openStage      prometheus.Gauge
	finalizedStage prometheus.Gauge
	lastFinalize   prometheus.Gauge
	lastSuccess    prometheus.Gauge
	entriesPushed  prometheus.Counter
	pushes         prometheus.Counter
	finalizes      prometheus.Counter
	sourceErrors   prometheus.Counter
	chainErrors    *prometheus.CounterVec
	verifyFailures prometheus.Counter

	mu     sync.Mutex
	health health
}

type health struct {
	Status      string    `json:"status"`
	L1Stage     uint64    `json:"l1_stage,omitempty"`
	OpenStage   uint64    `json:"open_stage,omitempty"`
	LastSuccess time.Time `json:"last_success,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	// ChainDown is a last pass that failed on the L1 or the rollup (unreachable, refusing).
	ChainDown bool `json:"chain_down,omitempty"`
}

// NewMetrics registers the operator's metrics (and the Go and process collectors) on a
// registry of their own.
func NewMetrics() *Metrics {
	reg := prometheus.NewRegistry()
	f := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "vipctl", Subsystem: "operate", Name: name, Help: help})
		reg.MustRegister(g)
		return g
	}
	c := func(name, help string) prometheus.Counter {
		k := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "vipctl", Subsystem: "operate", Name: name, Help: help})
		reg.MustRegister(k)
		return k
	}
	m := &Metrics{reg: reg,
		l1Stage:        f("l1_stage", "The L1's current VIP stage, as last read."),
		openStage:      f("open_stage", "The scoring contract's open stage, as last read."),
		finalizedStage: f("finalized_stage", "The last stage this operator finalized."),
		lastFinalize:   f("last_finalize_timestamp_seconds", "When this operator last finalized a stage (unix seconds)."),
		lastSuccess:    f("last_success_timestamp_seconds", "When a pass last completed without error (unix seconds)."),
		entriesPushed:  c("entries_pushed_total", "Score entries written to the contract (changed entries only)."),
		pushes:         c("pushes_total", "Score pushes that completed."),
		finalizes:      c("finalizes_total", "Stages finalized."),
		sourceErrors:   c("source_errors_total", "Score source failures (command exit, timeout, malformed or invalid output)."),
		verifyFailures: c("verify_failures_total", "Read-backs that differed from the source before a finalize."),
		chainErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "vipctl", Subsystem: "operate", Name: "chain_errors_total",
			Help: "Errors from the L1 or the rollup, by operation (l1, read, push, finalize, connect: endpoints reopened)."}, []string{"op"}),
		health: health{Status: "starting"},
	}
	reg.MustRegister(m.chainErrors, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, op := range []string{"l1", "read", "push", "finalize", "connect"} {
		m.chainErrors.WithLabelValues(op)
	}
	return m
}

// Registry is where the metrics live (for tests and embedding).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

func (m *Metrics) setHealth(f func(h *health)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f(&m.health)
}

// Handler serves /metrics (Prometheus text) and /healthz: 200 while a pass succeeded within
// stale and the last pass did not fail on the chain, else 503 with the last error.
func (m *Metrics) Handler(stale time.Duration) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		m.mu.Lock()
		h := m.health
		m.mu.Unlock()
		code := http.StatusOK
		if h.LastSuccess.IsZero() || time.Since(h.LastSuccess) > stale || h.ChainDown {
			code = http.StatusServiceUnavailable
			if h.Status == "ok" {
				h.Status = "stale"
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(h)
	})
	return mux
}
