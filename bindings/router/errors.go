package router

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// gRPC status codes, which the service answers in the code field of an error.
const (
	CodeOK                 = 0
	CodeCanceled           = 1
	CodeUnknown            = 2
	CodeInvalidArgument    = 3
	CodeDeadlineExceeded   = 4
	CodeNotFound           = 5
	CodeAlreadyExists      = 6
	CodePermissionDenied   = 7
	CodeResourceExhausted  = 8
	CodeFailedPrecondition = 9
	CodeAborted            = 10
	CodeOutOfRange         = 11
	CodeUnimplemented      = 12
	CodeInternal           = 13
	CodeUnavailable        = 14
	CodeDataLoss           = 15
	CodeUnauthenticated    = 16
)

// Detail type URLs (google.rpc error details).
const (
	TypeErrorInfo  = "type.googleapis.com/google.rpc.ErrorInfo"
	TypeBadRequest = "type.googleapis.com/google.rpc.BadRequest"
)

// ErrorInfo reasons. The service's ErrorDetail.reason enum is BAD_PRICE_ERROR,
// LOW_INFO_ERROR and HIGH_LOSS_ERROR (route price checks). The two not-found reasons are
// outside it and the stand-in no longer sends them (a not-found answer's message tells a
// transaction from a chain); they are kept so the client still reads answers that carry them.
const (
	ReasonBadPrice          = "BAD_PRICE_ERROR"
	ReasonLowInfo           = "LOW_INFO_ERROR"
	ReasonHighLoss          = "HIGH_LOSS_ERROR"
	ReasonTxNotFound        = "TX_NOT_FOUND"
	ReasonChainNotSupported = "CHAIN_NOT_SUPPORTED"
)

// FieldViolation names a bad request field (google.rpc.BadRequest).
type FieldViolation struct {
	Field       string `json:"field"`
	Description string `json:"description"`
}

// ErrorDetail is one entry of an error's details: a google.rpc ErrorInfo (Reason, Domain,
// Metadata) or BadRequest (FieldViolations), told apart by Type.
type ErrorDetail struct {
	Type            string            `json:"@type,omitempty"`
	Reason          string            `json:"reason,omitempty"`
	Domain          string            `json:"domain,omitempty"`
	Metadata        map[string]string `json:"metadata,omitempty"`
	FieldViolations []FieldViolation  `json:"field_violations,omitempty"`
}

// APIError is an answer other than 200: the service's {code, message, details} body and
// the HTTP status it came with.
type APIError struct {
	HTTPStatus int           `json:"-"`
	Method     string        `json:"-"`
	Path       string        `json:"-"`
	Code       int           `json:"code"`
	Message    string        `json:"message"`
	Details    []ErrorDetail `json:"details"`
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "router: %s %s: %d %s: code %d: %s", e.Method, e.Path, e.HTTPStatus, http.StatusText(e.HTTPStatus), e.Code, e.Message)
	if f := e.Field(); f != "" && !strings.Contains(e.Message, f) {
		fmt.Fprintf(&b, " (field %s)", f)
	}
	return b.String()
}

// Field is the first bad field the error names, or "".
func (e *APIError) Field() string {
	for _, d := range e.Details {
		for _, v := range d.FieldViolations {
			return v.Field
		}
	}
	return ""
}

// Reason is the first ErrorInfo reason of the error, or "".
func (e *APIError) Reason() string {
	for _, d := range e.Details {
		if d.Reason != "" {
			return d.Reason
		}
	}
	return ""
}

// AsAPIError returns the *APIError in err's chain.
func AsAPIError(err error) (*APIError, bool) {
	var e *APIError
	ok := errors.As(err, &e)
	return e, ok
}

// HasCode reports whether err is an APIError with the given gRPC code.
func HasCode(err error, code int) bool {
	e, ok := AsAPIError(err)
	return ok && e.Code == code
}

// IsInvalidArgument reports a 400 / INVALID_ARGUMENT answer.
func IsInvalidArgument(err error) bool { return HasCode(err, CodeInvalidArgument) }

// IsNotFound reports a NOT_FOUND answer (an unknown transaction, chain or route).
func IsNotFound(err error) bool { return HasCode(err, CodeNotFound) }

// IsTxNotFound reports a NOT_FOUND answer about a transaction rather than about a chain the
// service does not serve: the answer track gives until the service has seen the tx.
func IsTxNotFound(err error) bool {
	e, ok := AsAPIError(err)
	if !ok || e.Code != CodeNotFound {
		return false
	}
	if r := e.Reason(); r != "" {
		return r == ReasonTxNotFound
	}
	return !strings.Contains(strings.ToLower(e.Message), "not supported")
}

// IsTransient reports an answer worth repeating unchanged: UNAVAILABLE, DEADLINE_EXCEEDED,
// RESOURCE_EXHAUSTED, or an HTTP 502/503/504 without a gRPC body.
func IsTransient(err error) bool {
	e, ok := AsAPIError(err)
	if !ok {
		return false
	}
	switch e.Code {
	case CodeUnavailable, CodeDeadlineExceeded, CodeResourceExhausted:
		return true
	}
	switch e.HTTPStatus {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusTooManyRequests:
		return true
	}
	return false
}
