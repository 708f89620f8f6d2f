package router

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// PathFaults is the control endpoint: GET reads the faults, POST replaces them with the
// JSON body (a Faults; absent fields are zero), DELETE clears them. Each answers with the
// faults now in force.
const PathFaults = "/control/faults"

// Faults are failures the stand-in injects on purpose.
type Faults struct {
	// LatencyMS delays every API answer by this many milliseconds.
	LatencyMS int `json:"latency_ms"`
	// ErrorRate is the share of API requests, in [0, 1], answered 503 UNAVAILABLE.
	ErrorRate float64 `json:"error_rate"`
	// TrackNotFound answers the next N track requests "tx not found", as the real service
	// does until its indexer has seen a transaction. Each such answer counts one down.
	TrackNotFound int `json:"track_not_found"`
	// StuckHop (0-based) never completes in transfers tracked while it is set: the transfer
	// stays pending, and is abandoned after WithAbandonAfter.
	StuckHop *int `json:"stuck_hop"`
	// FailHop (0-based) fails in transfers tracked while it is set: an error
	// acknowledgement for IBC, a failed hook for OPinit. An index past the last hop means
	// the last hop.
	FailHop *int `json:"fail_hop"`
	// FailMessage is the error a failing hop reports.
	FailMessage string `json:"fail_message,omitempty"`
}

// Validate checks the ranges.
func (f Faults) Validate() error {
	switch {
	case f.LatencyMS < 0 || f.LatencyMS > 60_000:
		return fmt.Errorf("latency_ms: %d is outside [0, 60000]", f.LatencyMS)
	case f.ErrorRate < 0 || f.ErrorRate > 1 || f.ErrorRate != f.ErrorRate:
		return fmt.Errorf("error_rate: %v is outside [0, 1]", f.ErrorRate)
	case f.TrackNotFound < 0:
		return fmt.Errorf("track_not_found: %d is negative", f.TrackNotFound)
	case f.StuckHop != nil && *f.StuckHop < 0:
		return fmt.Errorf("stuck_hop: %d is negative", *f.StuckHop)
	case f.FailHop != nil && *f.FailHop < 0:
		return fmt.Errorf("fail_hop: %d is negative", *f.FailHop)
	}
	return nil
}

// Hop is a helper for Faults.StuckHop and Faults.FailHop.
func Hop(i int) *int { return &i }

// SetFaults replaces the injected faults.
func (s *Server) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("router: faults: %w", err)
	}
	s.mu.Lock()
	s.faults = f
	s.mu.Unlock()
	s.cfg.log.Info("router: faults set", "faults", f)
	return nil
}

// Faults returns the faults in force.
func (s *Server) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

func (s *Server) handleFaults(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
	case http.MethodDelete:
		_ = s.SetFaults(Faults{})
	case http.MethodPost, http.MethodPut:
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			writeErr(w, badField("body", "cannot be read"))
			return
		}
		var f Faults
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			field := "body"
			if i := strings.Index(err.Error(), "unknown field "); i >= 0 {
				field = strings.Trim(err.Error()[i+len("unknown field "):], `"`)
				writeErr(w, badField(field, "is not a fault"))
				return
			}
			if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
				field = te.Field
			}
			writeErr(w, badField(field, "is not valid JSON of the right type"))
			return
		}
		if err := f.Validate(); err != nil {
			field, desc, _ := strings.Cut(err.Error(), ": ")
			writeErr(w, badField(field, desc))
			return
		}
		_ = s.SetFaults(f)
	default:
		w.Header().Set("Allow", "GET, POST, PUT, DELETE")
		writeErr(w, &apiErr{status: http.StatusMethodNotAllowed, code: 12, msg: "method not allowed"})
		return
	}
	writeJSON(w, http.StatusOK, s.Faults())
}
