// Package nodehttp is the one way this module talks HTTP to a node: a REST GET or POST,
// or a JSON-RPC 2.0 call (CometBFT's RPC, an EVM node's JSON-RPC), with the reply bounded,
// and one error for a reply whose status is not 2xx (the request, the status, and what the
// body says) and one for a JSON-RPC error. The node clients (cosmosnode, ethnode, l1node)
// and the deployer's drivers read every node through it.
package nodehttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxMessage bounds the body text an Error keeps.
const maxMessage = 4 << 10

// Error is a reply whose HTTP status is not 2xx.
type Error struct {
	Method, URL string
	Status      int
	// Code and Message are what a Cosmos gateway's JSON error body says
	// ({"code": 5, "message": "..."}); Message is the body's text (trimmed, at most 4 KiB)
	// when the body is not such JSON.
	Code    int
	Message string
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Code != 0 {
		msg = fmt.Sprintf("code %d: %s", e.Code, msg)
	}
	return fmt.Sprintf("%s %s: HTTP %d: %s", e.Method, e.URL, e.Status, msg)
}

// NewError is the Error of a reply to req with status and body.
func NewError(req *http.Request, status int, body []byte) *Error {
	e := &Error{Status: status}
	if req != nil {
		e.Method, e.URL = req.Method, req.URL.String()
	}
	var gw struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &gw) == nil && gw.Message != "" {
		e.Code, e.Message = gw.Code, gw.Message
		return e
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "..."
	}
	e.Message = msg
	return e
}

// Read reads resp's body (at most limit bytes) and returns it, or an *Error when the status
// is not 2xx. It does not close the body.
func Read(req *http.Request, resp *http.Response, limit int64) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, fmt.Errorf("%s %s: read reply: %w", req.Method, req.URL, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, NewError(req, resp.StatusCode, body)
	}
	return body, nil
}

// Status is the HTTP status of the *Error in err's chain, 0 when there is none.
func Status(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// NotFound reports whether err is a reply that says the thing asked for does not exist: a
// 404, or what Initia's real rollups answer for a missing Move module or resource (HTTP
// 500, gRPC code 2 Unknown, "collections: not found ...": the store's own error, passed
// through by x/move's query server).
func NotFound(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Status == http.StatusNotFound ||
		e.Status == http.StatusInternalServerError && e.Code == codeUnknown && strings.HasPrefix(e.Message, collectionsNotFound)
}

// codeUnknown is gRPC's code 2; collectionsNotFound begins cosmossdk.io/collections'
// ErrNotFound text.
const (
	codeUnknown         = 2
	collectionsNotFound = "collections: not found"
)
