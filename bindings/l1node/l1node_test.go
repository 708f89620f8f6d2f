package l1node

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/localnet/l1"
)

func TestStageFromTheL1StandIn(t *testing.T) {
	srv, err := l1.Start(context.Background(), l1.WithStage(12))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	r := NewReader(srv.URL(), srv.VIPAddress(), nil)
	ctx := context.Background()
	if got, err := r.Stage(ctx); err != nil || got != 12 {
		t.Fatalf("Stage = %d, %v; want 12", got, err)
	}
	if _, err := srv.Advance(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Stage(ctx); err != nil || got != 13 {
		t.Fatalf("after Advance: Stage = %d, %v; want 13", got, err)
	}
	_, err = NewReader(srv.URL(), "0xbeef", nil).Stage(ctx)
	// As a real initiad answers (x/move passes the store's own error through): HTTP 500, code 2.
	if err == nil || !strings.Contains(err.Error(), "HTTP 500: code 2: collections: not found") || !strings.Contains(err.Error(), "check the address") {
		t.Fatalf("wrong vip address: error %v", err)
	}
}

func TestStageErrors(t *testing.T) {
	resource := func(moveResource string) string {
		return fmt.Sprintf(`{"resource":{"address":"0x1","struct_tag":"0x1::vip::ModuleStore","move_resource":%q,"raw_bytes":""}}`, moveResource)
	}
	tests := []struct {
		name    string
		status  int
		body    string
		want    uint64
		problem string
	}{
		{"ok string", 200, resource(`{"type":"0x1::vip::ModuleStore","data":{"stage":"5"}}`), 5, ""},
		{"ok number", 200, resource(`{"type":"0x1::vip::ModuleStore","data":{"stage":5}}`), 5, ""},
		{"not found", 404, `{"code":5,"message":"not found"}`, 0, "HTTP 404"},
		{"server error", 500, `boom`, 0, "HTTP 500: boom"},
		{"malformed json", 200, `{"resource":`, 0, "malformed reply"},
		{"no resource", 200, `{}`, 0, "no resource.move_resource"},
		{"malformed move_resource", 200, resource(`{"data":`), 0, "malformed move_resource"},
		{"no stage", 200, resource(`{"data":{}}`), 0, "no data.stage"},
		{"non-numeric stage", 200, resource(`{"data":{"stage":"five"}}`), 0, `stage "five" is not a decimal u64`},
		{"negative stage", 200, resource(`{"data":{"stage":"-1"}}`), 0, "not a decimal u64"},
		{"zero stage", 200, resource(`{"data":{"stage":"0"}}`), 0, "stage 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Query().Get("struct_tag") != "0x1::vip::ModuleStore" {
					t.Errorf("struct_tag = %q", r.URL.Query().Get("struct_tag"))
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			got, err := NewReader(srv.URL, "0x1", nil).Stage(context.Background())
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) || !strings.Contains(err.Error(), srv.URL) {
					t.Fatalf("error = %v, want it to name %q and the URL", err, tt.problem)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Stage = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestStageUnreachableNamesTheURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	dead := srv.URL
	srv.Close()
	_, err := NewReader(dead, "0x1", nil).Stage(context.Background())
	if err == nil || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), dead) {
		t.Fatalf("error = %v", err)
	}
}

func TestPreset(t *testing.T) {
	p, err := Preset("Mainnet")
	if err != nil || p.REST != "https://rest.initia.xyz" {
		t.Fatalf("Preset(mainnet) = %+v, %v", p, err)
	}
	if _, err := Preset("devnet"); err == nil {
		t.Fatal("unknown preset accepted")
	}
}
