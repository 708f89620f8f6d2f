package movevm

import (
	"archive/zip"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleZip is a module zip holding files (name -> content).
func moduleZip(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFetchVMFromAProxy fetches the MoveVM as `vipctl setup` does on a machine without a
// Go module cache: from the zip a module proxy serves, checked against the pinned sha256.
func TestFetchVMFromAProxy(t *testing.T) {
	real, err := os.ReadFile(filepath.Join(Dir(), VMLib))
	if err != nil || checkPinned(VMLib, real) != nil {
		t.Skip("the pinned MoveVM library is not installed here (make setup-movevm)")
	}
	path := "/" + strings.ToLower(VMModule) + "/@v/" + VMVersion + ".zip"
	tests := []struct {
		name  string
		serve map[string][]byte // nil: the proxy has no such module
		want  string            // "" for success
	}{
		{"the pinned library", map[string][]byte{vmEntry: real, VMModule + "@" + VMVersion + "/go.mod": []byte("module x\n")}, ""},
		{"an altered library", map[string][]byte{vmEntry: append([]byte("x"), real[1:]...)}, "pinned"},
		{"a zip without it", map[string][]byte{VMModule + "@" + VMVersion + "/README.md": []byte("hi")}, "holds no"},
		{"a proxy without the module", nil, "404"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var zipped []byte
			if tt.serve != nil {
				zipped = moduleZip(t, tt.serve)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != path || zipped == nil {
					http.NotFound(w, r)
					return
				}
				_, _ = w.Write(zipped)
			}))
			defer srv.Close()
			t.Setenv("GOMODCACHE", t.TempDir())
			t.Setenv("GOPROXY", srv.URL+",direct")
			got, err := fetchVM(context.Background())
			if tt.want == "" {
				if err != nil || !bytes.Equal(got, real) {
					t.Fatalf("fetchVM: %d bytes, %v; want the pinned library", len(got), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("fetchVM: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestModuleProxies(t *testing.T) {
	tests := []struct{ env, want string }{
		{"", "https://proxy.golang.org"},
		{"https://a.example/,direct", "https://a.example"},
		{"https://a.example|https://b.example,off", "https://a.example https://b.example"},
		{"direct", ""},
	}
	for _, tt := range tests {
		t.Setenv("GOPROXY", tt.env)
		if got := strings.Join(moduleProxies(), " "); got != tt.want {
			t.Errorf("GOPROXY=%q: proxies %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestVMVersionIsTheRequiredModule keeps VMVersion (whose library Install fetches) the
// movevm version go.mod requires (whose frameworks the rollups run).
func TestVMVersionIsTheRequiredModule(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == VMModule {
			if f[1] != VMVersion {
				t.Fatalf("go.mod requires %s %s, VMVersion is %s", VMModule, f[1], VMVersion)
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", VMModule)
}
