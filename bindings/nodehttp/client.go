package nodehttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultTimeout bounds a call of a Client without its own http.Client.
const DefaultTimeout = 10 * time.Second

// DefaultMaxReply bounds what is read of a reply (a page of a table, a tx_search page).
const DefaultMaxReply = 16 << 20

// Client calls one face of a node: a REST root (GetJSON, Do with a path) or a JSON-RPC
// endpoint (Call). The zero value of HTTP and MaxReply take the defaults.
type Client struct {
	URL      string
	HTTP     *http.Client
	MaxReply int64
	id       atomic.Int64
}

// New is a Client of url (a trailing slash dropped) through hc (nil: DefaultTimeout).
func New(url string, hc *http.Client) *Client {
	return &Client{URL: strings.TrimRight(strings.TrimSpace(url), "/"), HTTP: hc}
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: DefaultTimeout}
}

// Do sends method to path under the URL, with a JSON body (nil: none), and returns the
// reply's body; a non-2xx reply is an *Error, an unreachable node says so.
func (c *Client) Do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return Read(req, resp, c.maxReply())
}

func (c *Client) send(ctx context.Context, method, path string, body []byte) (*http.Request, *http.Response, error) {
	if c.URL == "" {
		return nil, nil, fmt.Errorf("%s %s: no URL for the node", method, path)
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, rd)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: unreachable: %w", req.Method, req.URL, err)
	}
	return req, resp, nil
}

func (c *Client) maxReply() int64 {
	if c.MaxReply <= 0 {
		return DefaultMaxReply
	}
	return c.MaxReply
}

// GetJSON reads path and decodes its JSON into out.
func (c *Client) GetJSON(ctx context.Context, path string, out any) error {
	body, err := c.Do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s%s: malformed reply %.200q: %w", c.URL, path, body, err)
	}
	return nil
}

// RPCError is a JSON-RPC 2.0 error reply.
type RPCError struct {
	URL, Method string
	Code        int
	Message     string
	Data        json.RawMessage
}

func (e *RPCError) Error() string {
	msg := fmt.Sprintf("%s at %s: error %d: %s", e.Method, e.URL, e.Code, e.Message)
	if len(e.Data) > 0 && string(e.Data) != "null" && string(e.Data) != `""` {
		msg += ": " + strings.Trim(string(e.Data), `"`)
	}
	return msg
}

// Call makes a JSON-RPC 2.0 call of method with params (a list or an object; nil: none) at
// the URL and decodes its result into out.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	if params == nil {
		params = []any{}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id.Add(1), "method": method, "params": params})
	if err != nil {
		return fmt.Errorf("%s at %s: %w", method, c.URL, err)
	}
	req, resp, err := c.send(ctx, http.MethodPost, "", body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.decodeRPC(req, resp, method, out)
}

// decodeRPC reads a JSON-RPC reply into out. A JSON-RPC error may come with any status
// (CometBFT's JSON-RPC handler answers it with a 200, its URI handler and some proxies with a
// 4xx or 5xx): its error object says more than the status.
func (c *Client) decodeRPC(req *http.Request, resp *http.Response, method string, out any) error {
	reply, err := io.ReadAll(io.LimitReader(resp.Body, c.maxReply()))
	if err != nil {
		return fmt.Errorf("%s at %s: read reply: %w", method, c.URL, err)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(reply, &r); err != nil {
		if resp.StatusCode/100 != 2 {
			return NewError(req, resp.StatusCode, reply)
		}
		return fmt.Errorf("%s at %s: malformed reply %.200q: %w", method, c.URL, reply, err)
	}
	if r.Error != nil {
		return &RPCError{URL: c.URL, Method: method, Code: r.Error.Code, Message: r.Error.Message, Data: r.Error.Data}
	}
	if resp.StatusCode/100 != 2 {
		return NewError(req, resp.StatusCode, reply)
	}
	if len(r.Result) == 0 {
		return fmt.Errorf("%s at %s: reply %.200q holds no result", method, c.URL, reply)
	}
	if err := json.Unmarshal(r.Result, out); err != nil {
		return fmt.Errorf("%s at %s: result %.200s: %w", method, c.URL, r.Result, err)
	}
	return nil
}
