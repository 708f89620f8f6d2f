package movevm

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTarball writes a package tarball holding files (name -> content).
func writeTarball(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestExtractLibrariesRefusesWhatIsNotPinned(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name:  "altered library",
			files: map[string]string{"package/library/" + CompilerLib: "not the compiler", "package/library/" + VMLib: "not the vm"},
			want:  "pinned",
		},
		{
			name:  "library missing from the package",
			files: map[string]string{"package/README.md": "no libraries here"},
			want:  "holds no",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := extractLibraries(writeTarball(t, tt.files))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing installed") {
				t.Fatalf("err = %v, want one containing %q and %q", err, tt.want, "nothing installed")
			}
		})
	}
}

func TestInstalledNamesTheSetupCommand(t *testing.T) {
	err := Installed(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "vipctl setup") {
		t.Fatalf("Installed(empty dir) = %v, want an error naming vipctl setup", err)
	}
}
