package router

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxBody bounds a reply; msgs replies with many messages are a few hundred kilobytes.
const maxBody = 16 << 20

// Backoff is the wait between attempts: Initial, then multiplied by Multiplier after each
// attempt, never above Max.
type Backoff struct {
	Initial    time.Duration
	Max        time.Duration
	Multiplier float64
}

// DefaultBackoff is the client's default: 250ms, 1.5x, at most 5s.
var DefaultBackoff = Backoff{Initial: 250 * time.Millisecond, Max: 5 * time.Second, Multiplier: 1.5}

func (b Backoff) next(d time.Duration) time.Duration {
	if d <= 0 {
		return b.Initial
	}
	n := time.Duration(float64(d) * b.Multiplier)
	if n < d {
		n = d
	}
	return min(n, b.Max)
}

// Client calls the routing service. It is safe for concurrent use.
type Client struct {
	base          string
	hc            *http.Client
	log           *slog.Logger
	backoff       Backoff
	retries       int
	trackAttempts int
}

// Option configures NewClient.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default: a client with a 30s timeout).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// WithLogger sets the logger: each call at debug, retries and state changes at info.
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// WithPollBackoff sets the wait between track retries, status polls and transient-error
// retries: initial, growing 1.5x up to max (default 250ms to 5s).
func WithPollBackoff(initial, max time.Duration) Option {
	return func(c *Client) {
		if initial > 0 {
			c.backoff.Initial = initial
		}
		if max >= c.backoff.Initial {
			c.backoff.Max = max
		} else {
			c.backoff.Max = c.backoff.Initial
		}
	}
}

// WithBackoff sets the whole backoff policy.
func WithBackoff(b Backoff) Option {
	return func(c *Client) {
		if b.Initial > 0 && b.Max >= b.Initial && b.Multiplier >= 1 {
			c.backoff = b
		}
	}
}

// WithRetries sets how many times one call is repeated after a transient answer
// (UNAVAILABLE, 502/503/504, 429) or a failed connection (default 4; 0 disables).
func WithRetries(n int) Option {
	return func(c *Client) {
		if n >= 0 {
			c.retries = n
		}
	}
}

// WithTrackAttempts bounds how often Transfer and WaitTracked ask track while the service
// says the transaction is not found (default 30, about as interwovenkit; 0 means until ctx
// ends).
func WithTrackAttempts(n int) Option {
	return func(c *Client) {
		if n >= 0 {
			c.trackAttempts = n
		}
	}
}

// NewClient returns a client of the service at baseURL (scheme, host and an optional path
// prefix; the endpoint paths are appended to it).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("router: base url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("router: base url %q: want http(s)://host[:port][/prefix]", baseURL)
	}
	c := &Client{
		base:          strings.TrimRight(baseURL, "/"),
		hc:            &http.Client{Timeout: 30 * time.Second},
		log:           slog.New(slog.DiscardHandler),
		backoff:       DefaultBackoff,
		retries:       4,
		trackAttempts: 30,
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// BaseURL is the service's base URL.
func (c *Client) BaseURL() string { return c.base }

// Route asks for a route and a quote.
func (c *Client) Route(ctx context.Context, req RouteRequest) (*RouteResponse, error) {
	var out RouteResponse
	if err := c.call(ctx, http.MethodPost, PathRoute, nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OPHook asks for the OP hook a route with required_op_hook needs signed.
func (c *Client) OPHook(ctx context.Context, req OPHookRequest) (*OPHookResponse, error) {
	var out OPHookResponse
	if err := c.call(ctx, http.MethodPost, PathOPHook, nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Msgs asks for the transactions that carry out a route.
func (c *Client) Msgs(ctx context.Context, req MsgsRequest) (*MsgsResponse, error) {
	var out MsgsResponse
	if err := c.call(ctx, http.MethodPost, PathMsgs, nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Track asks the service once to follow a broadcast transaction. Until the service has seen
// the transaction the answer is NOT_FOUND (IsTxNotFound); WaitTracked retries that.
func (c *Client) Track(ctx context.Context, req TrackRequest) (*TrackResponse, error) {
	var out TrackResponse
	if err := c.call(ctx, http.MethodPost, PathTrack, nil, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Status reads the state of a tracked transaction's transfers.
func (c *Client) Status(ctx context.Context, req StatusRequest) (*StatusResponse, error) {
	var out StatusResponse
	q := url.Values{"tx_hash": {req.TxHash}, "chain_id": {req.ChainID}}
	if err := c.call(ctx, http.MethodGet, PathStatus, q, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// WaitTracked asks track until the service accepts the transaction, waiting with backoff
// while it answers that the transaction is not found yet (or a transient error), at most
// WithTrackAttempts times. It returns the answer and the number of attempts.
func (c *Client) WaitTracked(ctx context.Context, req TrackRequest) (*TrackResponse, int, error) {
	var wait time.Duration
	for attempt := 1; ; attempt++ {
		res, err := c.Track(ctx, req)
		if err == nil {
			return res, attempt, nil
		}
		if !IsTxNotFound(err) && !IsTransient(err) {
			return nil, attempt, err
		}
		if c.trackAttempts > 0 && attempt >= c.trackAttempts {
			return nil, attempt, fmt.Errorf("router: track %s on %s: gave up after %d attempts: %w", req.TxHash, req.ChainID, attempt, err)
		}
		wait = c.backoff.next(wait)
		c.log.Info("router: tx not tracked yet; retrying", "tx", req.TxHash, "chain", req.ChainID, "attempt", attempt, "wait", wait, "err", err)
		if err := sleep(ctx, wait); err != nil {
			return nil, attempt, fmt.Errorf("router: track %s: %w", req.TxHash, err)
		}
	}
}

// WaitStatus polls the status with backoff until it is terminal (StatusResponse.Terminal)
// or ctx ends, calling onUpdate (if not nil) with each answer whose state changed. A
// NOT_FOUND answer (status not indexed yet) and transient errors are polled through. The
// terminal answer is returned whether the transfer succeeded or not.
func (c *Client) WaitStatus(ctx context.Context, req StatusRequest, onUpdate func(*StatusResponse)) (*StatusResponse, error) {
	var (
		wait time.Duration
		last *StatusResponse
		seen string
	)
	for {
		st, err := c.Status(ctx, req)
		switch {
		case err == nil:
			last = st
			if key := st.State + "/" + st.Status + "/" + progress(st); key != seen {
				seen = key
				c.log.Info("router: status", "tx", req.TxHash, "state", st.State, "status", st.Status)
				if onUpdate != nil {
					onUpdate(st)
				}
				wait = 0 // progress: poll soon again
			}
			if st.Terminal() {
				return st, nil
			}
		case IsTxNotFound(err) || IsTransient(err):
			c.log.Debug("router: status not available yet", "tx", req.TxHash, "err", err)
		default:
			return last, err
		}
		wait = c.backoff.next(wait)
		if err := sleep(ctx, wait); err != nil {
			state := "none"
			if last != nil {
				state = last.State
			}
			return last, fmt.Errorf("router: status of %s: %w (last state %s)", req.TxHash, err, state)
		}
	}
}

// progress summarises the hop states, so an update is reported when a hop moves.
func progress(st *StatusResponse) string {
	var b strings.Builder
	for _, t := range st.Transfers {
		for _, e := range t.TransferSequence {
			b.WriteString(e.HopState())
			b.WriteByte(',')
		}
	}
	return b.String()
}

func (c *Client) call(ctx context.Context, method, path string, query url.Values, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("router: %s: encode request: %w", path, err)
		}
	}
	var wait time.Duration
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, method, path, query, body, out)
		if err == nil || attempt >= c.retries || ctx.Err() != nil {
			return err
		}
		var netErr *transportError
		if !IsTransient(err) && !errors.As(err, &netErr) {
			return err
		}
		wait = c.backoff.next(wait)
		c.log.Info("router: transient error; retrying", "path", path, "attempt", attempt+1, "wait", wait, "err", err)
		if serr := sleep(ctx, wait); serr != nil {
			return err
		}
	}
}

type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

func (c *Client) once(ctx context.Context, method, path string, query url.Values, body []byte, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return fmt.Errorf("router: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("router: %s %s: %w", method, path, ctx.Err())
		}
		return &transportError{fmt.Errorf("router: %s %s: %w", method, path, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &transportError{fmt.Errorf("router: %s %s: read reply: %w", method, path, err)}
	}
	c.log.Debug("router: call", "method", method, "path", path, "status", resp.StatusCode, "took", time.Since(start))
	if resp.StatusCode != http.StatusOK {
		e := &APIError{HTTPStatus: resp.StatusCode, Method: method, Path: path}
		if json.Unmarshal(b, e) != nil || (e.Message == "" && e.Code == 0) {
			e.Code, e.Message, e.Details = codeForHTTP(resp.StatusCode), strings.TrimSpace(string(b)), nil
		}
		return e
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("router: %s %s: decode reply: %w", method, path, err)
	}
	return nil
}

// codeForHTTP maps an HTTP status without a gRPC body to the gRPC code gateways use.
func codeForHTTP(status int) int {
	switch status {
	case http.StatusBadRequest:
		return CodeInvalidArgument
	case http.StatusUnauthorized:
		return CodeUnauthenticated
	case http.StatusForbidden:
		return CodePermissionDenied
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusConflict:
		return CodeAborted
	case http.StatusTooManyRequests:
		return CodeResourceExhausted
	case http.StatusNotImplemented:
		return CodeUnimplemented
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return CodeUnavailable
	}
	return CodeUnknown
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
