package nodehttp

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A reply that is not 2xx is one *Error, whatever the body: a Cosmos gateway's JSON error
// gives its code and message, anything else its trimmed text.
func TestReadKeepsTheStatusAndWhatTheBodySays(t *testing.T) {
	for _, tc := range []struct {
		status        int
		body          string
		code          int
		message, text string
	}{
		{200, `{"ok":true}`, 0, "", ""},
		{404, `{"code":5,"message":"account not found"}`, 5, "account not found", "HTTP 404: code 5: account not found"},
		{500, " boom\n", 0, "boom", "HTTP 500: boom"},
		// What a real minimove answers for a missing module or resource.
		{500, `{"code":2,"message":"collections: not found: key 'hexBytes:9fb9' of type bytes","details":[]}`, 2, "collections: not found: key 'hexBytes:9fb9' of type bytes", "HTTP 500: code 2: collections: not found"},
		{500, `{"code":2,"message":"VM error: collections: not found in a call"}`, 2, "VM error: collections: not found in a call", "HTTP 500: code 2: VM error"},
		{503, strings.Repeat("x", 5000), 0, strings.Repeat("x", maxMessage) + "...", "HTTP 503: xxx"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			fmt.Fprint(w, tc.body)
		}))
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := Read(req, resp, 1<<20)
		resp.Body.Close()
		srv.Close()
		if tc.status == 200 {
			if err != nil || string(body) != tc.body {
				t.Fatalf("200: %q %v", body, err)
			}
			continue
		}
		var e *Error
		wrapped := fmt.Errorf("read: %w", err)
		if !errors.As(wrapped, &e) || e.Status != tc.status || e.Code != tc.code || e.Message != tc.message ||
			Status(wrapped) != tc.status || NotFound(wrapped) != (tc.status == 404 || strings.HasPrefix(tc.message, "collections: not found")) ||
			!strings.Contains(err.Error(), "GET "+srv.URL+"/x: "+tc.text) {
			t.Fatalf("%d: %+v (%v)", tc.status, e, err)
		}
	}
}
