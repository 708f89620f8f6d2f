// Package router is a local stand-in for Initia's routing service (a superset of the Skip
// Go API v2). It is stateful, not canned: it validates every request field, computes routes
// over a graph of chains, assets and bridges (fixtures/router/graph.json by default),
// builds transactions a real signer can sign and a local chain executes, checks tracked
// transactions on the local chain they were broadcast to, and moves each transfer through
// per-hop states as time passes. Faults (latency, 503s, lost tracks, stuck and failing
// hops) are injected through POST /control/faults or SetFaults.
package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	api "github.com/vipharness/vipharness/bindings/router"
)

// maxRequestBody bounds a request body.
const maxRequestBody = 1 << 20

// Server is a running stand-in.
type Server struct {
	cfg     config
	ix      *index
	sources map[string]TxSource
	closers []func()

	ln        net.Listener
	hs        *http.Server
	url       string
	serveDone chan struct{}
	closeOnce sync.Once
	closeErr  error

	requests map[string]*atomic.Int64 // per API path

	mu        sync.Mutex
	faults    Faults
	rng       *rand.Rand
	plans     map[string]*plan
	hooks     map[string]bool
	transfers map[string]*transfer

	trackMu     sync.Mutex   // one new transfer at a time (its hook sees the sequence before it)
	hc          *http.Client // reads linked chains' accounts
	accounts    map[string]map[string]*simAccount
	nextAccount uint64
}

// Start starts a stand-in on 127.0.0.1 (a free port unless WithAddr). ctx bounds the
// start-up only (dialling linked chains); Close stops the server.
func Start(ctx context.Context, opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.graphErr != nil {
		return nil, cfg.graphErr
	}
	if cfg.graph == nil {
		cfg.graph = DefaultGraph()
	}
	if err := cfg.faults.Validate(); err != nil {
		return nil, fmt.Errorf("router: faults: %w", err)
	}
	if err := checkLoopback(cfg.addr); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:       cfg,
		ix:        newIndex(cfg.graph),
		sources:   map[string]TxSource{},
		faults:    cfg.faults,
		rng:       rand.New(rand.NewPCG(cfg.seed, 0x726f75746572)),
		plans:     map[string]*plan{},
		hooks:     map[string]bool{},
		transfers: map[string]*transfer{},
		hc:        &http.Client{Timeout: 10 * time.Second},
		accounts:  map[string]map[string]*simAccount{},
		serveDone: make(chan struct{}),
		requests:  map[string]*atomic.Int64{},
	}
	for _, p := range []string{api.PathRoute, api.PathOPHook, api.PathMsgs, api.PathTrack, api.PathStatus, api.PathChains, api.PathAssets, api.PathBalances} {
		s.requests[p] = new(atomic.Int64)
	}
	for id, u := range cfg.accountLinks {
		if _, ok := s.ix.chains[id]; !ok {
			return nil, fmt.Errorf("router: accounts linked for chain %q, which is not in the graph", id)
		}
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("router: accounts of chain %s: REST URL %q is not http(s)", id, u)
		}
	}
	for _, l := range cfg.links {
		if _, ok := s.ix.chains[l.chainID]; !ok {
			s.closeSources()
			return nil, fmt.Errorf("router: linked chain %q is not in the graph", l.chainID)
		}
		src := l.source
		if src == nil {
			rs, err := dialRPC(ctx, l.chainID, l.rpcURL)
			if err != nil {
				s.closeSources()
				return nil, err
			}
			s.closers = append(s.closers, rs.close)
			src = rs
		}
		s.sources[l.chainID] = src
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		s.closeSources()
		return nil, fmt.Errorf("router: listen: %w", err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.serveDone)
		if err := s.hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			cfg.log.Error("router: serve", "err", err)
		}
	}()
	cfg.log.Info("router: stand-in started", "url", s.url, "chains", len(cfg.graph.Chains), "bridges", len(cfg.graph.Bridges))
	return s, nil
}

// Requests returns how many requests each API path has received.
func (s *Server) Requests() map[string]int64 {
	out := make(map[string]int64, len(s.requests))
	for p, c := range s.requests {
		out[p] = c.Load()
	}
	return out
}

// URL is the base URL, http://127.0.0.1:port.
func (s *Server) URL() string { return s.url }

// Graph is the graph the stand-in routes over.
func (s *Server) Graph() *Graph { return s.cfg.graph }

// Close stops the server and its goroutines and closes the linked chains' clients. Safe to
// call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.hs.Shutdown(ctx); err != nil {
			// requests still running (an injected latency): cut them off
			s.closeErr = s.hs.Close()
		}
		<-s.serveDone
		s.closeSources()
	})
	return s.closeErr
}

func (s *Server) closeSources() {
	for _, c := range s.closers {
		c()
	}
	s.closers = nil
}

func (s *Server) now() time.Time { return s.cfg.now() }

// ServeHTTP routes the API, the control endpoint and /health.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	switch path {
	case api.PathRoute:
		s.serveAPI(w, r, http.MethodPost, s.handleRoute)
	case api.PathOPHook:
		s.serveAPI(w, r, http.MethodPost, s.handleOPHook)
	case api.PathMsgs:
		s.serveAPI(w, r, http.MethodPost, s.handleMsgs)
	case api.PathTrack:
		s.serveAPI(w, r, http.MethodPost, s.handleTrack)
	case api.PathStatus:
		s.serveAPI(w, r, http.MethodGet, s.handleStatus)
	case api.PathChains:
		s.serveAPI(w, r, http.MethodGet, s.handleChains)
	case api.PathAssets:
		s.serveAPI(w, r, http.MethodGet, s.handleAssets)
	case api.PathBalances:
		s.serveAPI(w, r, http.MethodPost, s.handleBalances)
	case PathFaults:
		s.handleFaults(w, r)
	case "/health":
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	default:
		if strings.HasPrefix(path, chainRESTPrefix) {
			s.serveChainREST(w, r, path)
			return
		}
		writeErr(w, &apiErr{status: http.StatusNotFound, code: api.CodeNotFound, msg: "Not Found"})
	}
}

// serveAPI applies the injected latency and error rate, checks the method and writes the
// handler's answer.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, method string, h func(*http.Request) (any, *apiErr)) {
	if c := s.requests[strings.TrimRight(r.URL.Path, "/")]; c != nil {
		c.Add(1)
	}
	f := s.Faults()
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	if f.ErrorRate > 0 {
		s.mu.Lock()
		hit := s.rng.Float64() < f.ErrorRate
		s.mu.Unlock()
		if hit {
			writeErr(w, &apiErr{status: http.StatusServiceUnavailable, code: api.CodeUnavailable, msg: "service unavailable (injected fault)"})
			return
		}
	}
	if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		w.Header().Set("Allow", method)
		writeErr(w, &apiErr{status: http.StatusMethodNotAllowed, code: api.CodeUnimplemented, msg: "Method Not Allowed"})
		return
	}
	out, e := h(r)
	if e != nil {
		s.cfg.log.Debug("router: request refused", "path", r.URL.Path, "status", e.status, "msg", e.msg)
		writeErr(w, e)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// apiErr is an error answer: an HTTP status and the {code, message, details} body.
type apiErr struct {
	status  int
	code    int
	msg     string
	details []api.ErrorDetail
}

func badField(field, desc string) *apiErr {
	return &apiErr{
		status: http.StatusBadRequest, code: api.CodeInvalidArgument,
		msg:     "invalid " + field + ": " + desc,
		details: []api.ErrorDetail{{Type: api.TypeBadRequest, FieldViolations: []api.FieldViolation{{Field: field, Description: desc}}}},
	}
}

// notFound is a 404 (code 5). Its details stay empty: the service's ErrorDetail.reason enum
// (LOW_INFO_ERROR, BAD_PRICE_ERROR, HIGH_LOSS_ERROR) has no value for a missing route, tx or
// chain, so the message alone tells them apart, as the service's messages do.
func notFound(msg string) *apiErr {
	return &apiErr{status: http.StatusNotFound, code: api.CodeNotFound, msg: msg}
}

func writeErr(w http.ResponseWriter, e *apiErr) {
	d := e.details
	if d == nil {
		d = []api.ErrorDetail{}
	}
	writeJSON(w, e.status, struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Details []api.ErrorDetail `json:"details"`
	}{e.code, e.msg, d})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"code":13,"message":"encode reply","details":[]}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// decodeBody reads a JSON object into dst. Unknown fields are ignored, as the service's
// gateway does; a field of the wrong type is a 400 naming it.
func decodeBody(r *http.Request, dst any) *apiErr {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		return badField("body", "cannot be read")
	}
	if len(body) > maxRequestBody {
		return badField("body", fmt.Sprintf("is larger than %d bytes", maxRequestBody))
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badField("body", "is empty; a JSON object is required")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return badField("body", "is not a JSON object")
	}
	if err := json.Unmarshal(body, dst); err == nil {
		return nil
	}
	// Find the first top-level field that does not decode on its own.
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	typ := reflect.TypeOf(dst).Elem()
	for _, k := range keys {
		one, _ := json.Marshal(map[string]json.RawMessage{k: top[k]})
		if err := json.Unmarshal(one, reflect.New(typ).Interface()); err != nil {
			field := k
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" && strings.HasPrefix(te.Field, k) {
				field = te.Field
			}
			return badField(field, "has the wrong JSON type")
		}
	}
	return badField("body", "does not decode")
}
