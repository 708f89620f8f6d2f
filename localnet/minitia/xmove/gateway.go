package xmove

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cosmos/cosmos-sdk/types/query"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// x/move's REST routes are served here rather than by a generated gRPC gateway (the bindings
// carry no gateway code); they answer as the SDK's gateway does.

// writeError answers err as the gateway does: {"code","message","details"} with the HTTP
// status of its gRPC code (codes.Unknown, 500, for an error that carries none).
func writeError(w http.ResponseWriter, err error) {
	st := status.Convert(err)
	bz, _ := json.Marshal(struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Details []any  `json:"details"`
	}{int(st.Code()), st.Message(), []any{}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpStatus(st.Code()))
	_, _ = w.Write(bz)
}

// httpStatus is grpc-gateway's mapping of gRPC codes to HTTP statuses.
func httpStatus(c codes.Code) int {
	switch c {
	case codes.OK:
		return http.StatusOK
	case codes.Canceled:
		return http.StatusRequestTimeout
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// bindPageRequest reads the gateway's pagination.* query parameters; nil when none is given.
func bindPageRequest(v url.Values) (*query.PageRequest, error) {
	var req query.PageRequest
	given := false
	if s := v.Get("pagination.key"); s != "" {
		given = true
		var err error
		if req.Key, err = base64.StdEncoding.DecodeString(s); err != nil {
			if req.Key, err = base64.URLEncoding.DecodeString(s); err != nil {
				return nil, typeMismatch("pagination.key", err)
			}
		}
	}
	for name, dst := range map[string]*uint64{"pagination.offset": &req.Offset, "pagination.limit": &req.Limit} {
		if s := v.Get(name); s != "" {
			given = true
			u, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return nil, typeMismatch(name, err)
			}
			*dst = u
		}
	}
	for name, dst := range map[string]*bool{"pagination.count_total": &req.CountTotal, "pagination.reverse": &req.Reverse} {
		if s := v.Get(name); s != "" {
			given = true
			b, err := strconv.ParseBool(s)
			if err != nil {
				return nil, typeMismatch(name, err)
			}
			*dst = b
		}
	}
	if !given {
		return nil, nil
	}
	return &req, nil
}

func typeMismatch(name string, err error) error {
	return status.Errorf(codes.InvalidArgument, "type mismatch, parameter: %s, error: %v", name, err)
}
