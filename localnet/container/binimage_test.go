package container

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A binary image holds the binary where asked, its loader at the path the binary names,
// its libraries and those carried beside it in the loader's folder, and empty 1777
// folders; nothing else.
func TestBinaryImageContext(t *testing.T) {
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "minitiad")
	beside := filepath.Join(dir, "libbeside.so")
	for _, dst := range []string{bin, beside} {
		src := sh
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files, err := binaryImageFiles(context.Background(), BinaryImage{Binary: bin, At: "/usr/local/bin/minitiad", Libraries: []string{beside}})
	if err != nil {
		t.Fatal(err)
	}
	if files["/usr/local/bin/minitiad"] != bin || files[imageLibDir+"/libbeside.so"] != beside {
		t.Fatalf("files %v", files)
	}
	loader := false
	for at := range files {
		if strings.HasPrefix(at, "/lib") && strings.Contains(at, "ld-linux") {
			loader = true
		}
	}
	if !loader {
		t.Errorf("no program loader in %v", files)
	}
	var buf bytes.Buffer
	if err := writeBuildContext(&buf, "FROM scratch\n", files, []string{"/tmp", "minitia"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[h.Name] = h.Mode
	}
	for name, mode := range map[string]int64{"Dockerfile": 0o644, "rootfs/tmp/": 0o1777, "rootfs/minitia/": 0o1777, "rootfs/usr/local/bin/minitiad": 0o755} {
		if m, ok := got[name]; !ok || m != mode {
			t.Errorf("%s: mode %o (present %v), want %o; entries %v", name, m, ok, mode, got)
		}
	}
	if len(got) != len(files)+3 {
		t.Errorf("%d entries, want %d: %v", len(got), len(files)+3, got)
	}
}

func TestBuildOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, reply, wantErr string
	}{
		{"built", `{"stream":"Step 1/3 : FROM scratch\n"}{"stream":"Successfully tagged x:local\n"}`, ""},
		{"refused", `{"stream":"Step 2/3 : COPY rootfs/ /\n"}{"error":"no space left on device"}`, "no space left on device (after: Step 2/3 : COPY rootfs/ /)"},
		{"cut short", `{"stream":"Step 1`, "read the engine's reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := buildOutcome(strings.NewReader(tc.reply), "x:local")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want %q", err, tc.wantErr)
			}
		})
	}
}
