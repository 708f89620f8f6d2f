// Package l1 is a stand-in for the Initia L1's REST face as far as VIP deployments read it:
// the vip module's ModuleStore resource, whose stage a test can set and advance. Unknown
// accounts, struct tags and paths get the L1's 404 and 400 error bodies.
package l1

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultVIPAddress is the stand-in's vip module address (a 32-byte Move address).
const DefaultVIPAddress = "0x" + "00000000000000000000000000000000000000000000000000000000000000f1"

type config struct {
	stage  uint64
	vip    string
	logger *slog.Logger
}

// Option configures a Server.
type Option func(*config)

// WithStage sets the starting stage (default 1).
func WithStage(n uint64) Option { return func(c *config) { c.stage = n } }

// WithVIPAddress sets the vip module's address.
func WithVIPAddress(addr string) Option { return func(c *config) { c.vip = addr } }

// WithLogger logs requests at debug level.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Server serves the ModuleStore resource on 127.0.0.1.
type Server struct {
	url    string
	vip    string
	srv    *http.Server
	logger *slog.Logger

	mu         sync.Mutex
	stage      uint64
	stageStart time.Time
}

// Start listens on an ephemeral loopback port.
func Start(opts ...Option) (*Server, error) {
	c := config{stage: 1, vip: DefaultVIPAddress, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	vip, err := normalize(c.vip)
	if err != nil {
		return nil, fmt.Errorf("l1 stand-in vip address: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("l1 stand-in listen: %w", err)
	}
	s := &Server{url: "http://" + ln.Addr().String(), vip: vip, logger: c.logger, stage: c.stage, stageStart: time.Now()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /initia/move/v1/accounts/{address}/resources/by_struct_tag", s.resource)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotImplemented, 12, "Not Implemented")
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the REST base URL.
func (s *Server) URL() string { return s.url }

// VIPAddress is the vip module's address.
func (s *Server) VIPAddress() string { return s.vip }

// Stage is the current stage.
func (s *Server) Stage() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stage
}

// Set moves the L1 to stage n.
func (s *Server) Set(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stage, s.stageStart = n, time.Now()
}

// Advance moves the L1 to the next stage and returns it.
func (s *Server) Advance() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stage++
	s.stageStart = time.Now()
	return s.stage
}

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("stop l1 stand-in: %w", err)
	}
	return nil
}

// normalize reads a Move address (0x + up to 64 hex digits) into its full 32-byte form.
func normalize(a string) (string, error) {
	h := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(a)), "0x")
	if h == "" || len(h) > 64 {
		return "", fmt.Errorf("address %q: want 0x and 1 to 64 hex digits", a)
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", fmt.Errorf("address %q: not hex", a)
		}
	}
	return "0x" + strings.Repeat("0", 64-len(h)) + h, nil
}

func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	addr, err := normalize(r.PathValue("address"))
	if err != nil {
		writeError(w, http.StatusBadRequest, 3, "invalid address: "+err.Error())
		return
	}
	tag := r.URL.Query().Get("struct_tag")
	if tag == "" {
		writeError(w, http.StatusBadRequest, 3, "empty struct tag")
		return
	}
	parts := strings.Split(tag, "::")
	if len(parts) != 3 {
		writeError(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid struct tag %q", tag))
		return
	}
	tagAddr, err := normalize(parts[0])
	if err != nil {
		writeError(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid struct tag %q: %v", tag, err))
		return
	}
	s.logger.Debug("l1 resource", "address", addr, "struct_tag", tag)
	if addr != s.vip || tagAddr != s.vip || parts[1] != "vip" || parts[2] != "ModuleStore" {
		writeError(w, http.StatusNotFound, 5, "collections: not found: key 'resource'")
		return
	}
	s.mu.Lock()
	stage, start := s.stage, s.stageStart
	s.mu.Unlock()
	short := shortAddr(s.vip)
	data := map[string]any{
		"type": short + "::vip::ModuleStore",
		"data": map[string]any{
			"stage":            strconv.FormatUint(stage, 10),
			"stage_start_time": strconv.FormatInt(start.Unix(), 10),
			"stage_end_time":   strconv.FormatInt(start.Add(14*24*time.Hour).Unix(), 10),
			"stage_interval":   strconv.FormatInt(int64(14*24*time.Hour/time.Second), 10),
		},
	}
	moveResource, _ := json.Marshal(data)
	writeJSON(w, http.StatusOK, map[string]any{"resource": map[string]any{
		"address":       short,
		"struct_tag":    short + "::vip::ModuleStore",
		"move_resource": string(moveResource),
		"raw_bytes":     rawStage(stage),
	}})
}

// shortAddr drops leading zeros as the L1 prints addresses.
func shortAddr(full string) string {
	h := strings.TrimLeft(strings.TrimPrefix(full, "0x"), "0")
	if h == "" {
		h = "0"
	}
	return "0x" + h
}

// rawStage is the little-endian u64 stage as base64, the start of the BCS resource.
func rawStage(stage uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(stage >> (8 * i))
	}
	return b
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError uses the gRPC-gateway error body that Cosmos REST returns.
func writeError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "message": msg, "details": []any{}})
}
