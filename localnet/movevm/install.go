package movevm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Package is the pinned npm package that ships the libraries (npm checks its tarball
// against the registry's integrity; Install checks the two libraries against native.sha256).
const Package = "@initia/builder.js@0.2.12"

// Installed reports whether dir holds both libraries with their pinned checksums.
func Installed(dir string) error {
	for _, name := range []string{CompilerLib, VMLib} {
		if err := verify(filepath.Join(dir, name), name); err != nil {
			return err
		}
	}
	return nil
}

// Install puts the pinned libraries into dir: `npm pack` fetches Package through the
// user's npm (its registry and proxy settings), the two libraries are taken from the
// tarball and checked against native.sha256 before anything is written, and each is
// written under a temporary name and renamed, so dir never holds a partial or unverified
// library. A dir that already holds verified libraries is left as it is.
func Install(ctx context.Context, dir string) error {
	if Installed(dir) == nil {
		return nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("install Move libraries: only the linux x86_64 build of %s is pinned (this is %s/%s)", Package, runtime.GOOS, runtime.GOARCH)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("install Move libraries: npm is missing (the libraries come from the npm package %s): apt-get install -y nodejs npm", Package)
	}
	tmp, err := os.MkdirTemp("", "vipharness-movevm-")
	if err != nil {
		return fmt.Errorf("install Move libraries: %w", err)
	}
	defer os.RemoveAll(tmp)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, npm, "pack", Package, "--pack-destination", tmp, "--silent", "--no-audit", "--no-fund")
	cmd.Dir, cmd.Stdout, cmd.Stderr = tmp, io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install Move libraries: npm pack %s: %w: %s", Package, err, bytes.TrimSpace(stderr.Bytes()))
	}
	tgz, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return fmt.Errorf("install Move libraries: npm pack %s left no single tarball in %s", Package, tmp)
	}
	libs, err := extractLibraries(tgz[0])
	if err != nil {
		return fmt.Errorf("install Move libraries from %s: %w", Package, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install Move libraries: %w", err)
	}
	for _, name := range []string{CompilerLib, VMLib} {
		dst := filepath.Join(dir, name)
		if err := os.WriteFile(dst+".tmp", libs[name], 0o755); err != nil {
			return fmt.Errorf("install Move libraries: %w", err)
		}
		if err := os.Rename(dst+".tmp", dst); err != nil {
			return fmt.Errorf("install Move libraries: %w", err)
		}
	}
	return Installed(dir)
}

// extractLibraries reads the two libraries out of the package tarball and checks each
// against its pinned sha256.
func extractLibraries(tgz string) (map[string][]byte, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(tgz), err)
	}
	want := map[string]string{"package/library/" + CompilerLib: CompilerLib, "package/library/" + VMLib: VMLib}
	out := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Base(tgz), err)
		}
		name, ok := want[h.Name]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("read %s from %s: %w", h.Name, filepath.Base(tgz), err)
		}
		sum := sha256.Sum256(b)
		pin, _ := pinned(name)
		if got := hex.EncodeToString(sum[:]); got != pin {
			return nil, fmt.Errorf("%s has sha256 %s, pinned %s; nothing installed", name, got, pin)
		}
		out[name] = b
	}
	for _, name := range want {
		if out[name] == nil {
			return nil, fmt.Errorf("%s holds no %s; nothing installed", filepath.Base(tgz), name)
		}
	}
	return out, nil
}
