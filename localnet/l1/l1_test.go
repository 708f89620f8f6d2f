package l1

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/localnet/movevm"
)

// requireLibs skips without the Move libraries, or fails when REQUIRE_NODES=1 (CI).
func requireLibs(t *testing.T) {
	t.Helper()
	if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
		if errors.Is(err, movevm.ErrNotInstalled) && os.Getenv("REQUIRE_NODES") != "1" && os.Getenv("CI") != "true" {
			t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
		}
		t.Fatal(err)
	}
}

func TestServesModuleStoreWithSettableStage(t *testing.T) {
	requireLibs(t)
	ctx := context.Background()
	s, err := Start(context.Background(), WithStage(7))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	read := func() (int, string) {
		t.Helper()
		tag := s.VIPAddress() + "::vip::ModuleStore"
		resp, err := http.Get(s.URL() + "/initia/move/v1/accounts/" + s.VIPAddress() + "/resources/by_struct_tag?struct_tag=" + url.QueryEscape(tag))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var reply struct {
			Resource struct {
				MoveResource string `json:"move_resource"`
			} `json:"resource"`
		}
		body, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(body, &reply); err != nil {
			t.Fatalf("reply %s: %v", body, err)
		}
		var store struct {
			Data struct {
				Stage     string `json:"stage"`
				StartTime string `json:"stage_start_time"`
				EndTime   string `json:"stage_end_time"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(reply.Resource.MoveResource), &store); err != nil {
			t.Fatalf("move_resource %q: %v", reply.Resource.MoveResource, err)
		}
		return resp.StatusCode, store.Data.Stage
	}
	if code, st := read(); code != 200 || st != "7" {
		t.Fatalf("got %d stage %q, want 200 stage 7", code, st)
	}
	if n, err := s.Advance(ctx); err != nil || n != 8 {
		t.Fatalf("Advance = %d, %v", n, err)
	}
	if err := s.Set(ctx, 42); err != nil {
		t.Fatal(err)
	}
	if code, st := read(); code != 200 || st != "42" {
		t.Fatalf("got %d stage %q, want 200 stage 42", code, st)
	}
	if n, err := s.Stage(ctx); err != nil || n != 42 {
		t.Fatalf("Stage = %d, %v", n, err)
	}
	if err := s.Set(ctx, 41); err == nil || !strings.Contains(err.Error(), "VM aborted") {
		t.Fatalf("moving the stage back: %v", err)
	}
}

// Another vip address gets the module built for it.
func TestVIPAddressIsConfigurable(t *testing.T) {
	requireLibs(t)
	s, err := Start(context.Background(), WithVIPAddress("0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789"), WithStage(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if n, err := s.Stage(context.Background()); err != nil || n != 3 {
		t.Fatalf("Stage = %d, %v", n, err)
	}
	if s.VIPAddress() != "0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789" {
		t.Fatal(s.VIPAddress())
	}
}

func TestRejectsWhatTheL1Rejects(t *testing.T) {
	requireLibs(t)
	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	base := s.URL() + "/initia/move/v1/accounts/"
	tests := []struct {
		name string
		path string
		code int
	}{
		// A missing resource is x/move's store error passed through, as initiad answers it:
		// HTTP 500, gRPC code 2, "collections: not found".
		{"other account", base + "0x2/resources/by_struct_tag?struct_tag=0x2::vip::ModuleStore", 500},
		{"other struct", base + s.VIPAddress() + "/resources/by_struct_tag?struct_tag=" + s.VIPAddress() + "::vip::Other", 500},
		{"no struct tag", base + s.VIPAddress() + "/resources/by_struct_tag", 400},
		{"bad address", base + "0xzz/resources/by_struct_tag?struct_tag=0x1::vip::ModuleStore", 400},
		{"bad tag", base + s.VIPAddress() + "/resources/by_struct_tag?struct_tag=vip", 400},
		// The SDK's API server answers a route it does not have as every Cosmos node does: 501.
		{"other path", s.URL() + "/initia/mstaking/v1/validators", 501},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.code || body.Message == "" {
				t.Fatalf("status %d body %+v, want %d with a message", resp.StatusCode, body, tt.code)
			}
		})
	}
}
