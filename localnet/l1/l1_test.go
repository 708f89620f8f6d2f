package l1

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
)

func TestServesModuleStoreWithSettableStage(t *testing.T) {
	s, err := Start(WithStage(7))
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
				Stage string `json:"stage"`
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
	if n := s.Advance(); n != 8 {
		t.Fatalf("Advance = %d", n)
	}
	s.Set(42)
	if code, st := read(); code != 200 || st != "42" || s.Stage() != 42 {
		t.Fatalf("got %d stage %q, want 200 stage 42", code, st)
	}
}

func TestRejectsWhatTheL1Rejects(t *testing.T) {
	s, err := Start()
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
		{"other account", base + "0x2/resources/by_struct_tag?struct_tag=0x2::vip::ModuleStore", 404},
		{"other struct", base + s.VIPAddress() + "/resources/by_struct_tag?struct_tag=" + s.VIPAddress() + "::vip::Other", 404},
		{"no struct tag", base + s.VIPAddress() + "/resources/by_struct_tag", 400},
		{"bad address", base + "0xzz/resources/by_struct_tag?struct_tag=0x1::vip::ModuleStore", 400},
		{"bad tag", base + s.VIPAddress() + "/resources/by_struct_tag?struct_tag=vip", 400},
		{"other path", s.URL() + "/cosmos/base/tendermint/v1beta1/node_info", 501},
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
