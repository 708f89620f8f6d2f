package movevm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Package is the pinned npm package that ships the compiler (npm checks its tarball against
// the registry's integrity; Install checks the library against native.sha256).
const Package = "@initia/builder.js@0.2.12"

// The MoveVM is the one a minimove v1.1.11 links: movevm's own build of libmovevm, shipped in
// its Go module (the module this one requires, for its precompiled 0x1 frameworks).
const (
	VMModule  = "github.com/initia-labs/movevm"
	VMVersion = "v1.1.2"
)

// vmEntry is the library's path inside VMModule's module zip.
const vmEntry = VMModule + "@" + VMVersion + "/api/" + VMLib

// Installed reports whether dir holds both libraries with their pinned checksums.
func Installed(dir string) error {
	for _, name := range []string{CompilerLib, VMLib} {
		if err := verify(filepath.Join(dir, name), name); err != nil {
			return err
		}
	}
	return nil
}

// Install puts the pinned libraries into dir: the compiler from Package (`npm pack`, through
// the user's npm and its registry settings), the VM from VMModule's module zip (the Go module
// cache's copy when there is one, else the GOPROXY's). Each is checked against native.sha256
// before anything is written, and written under a temporary name and renamed, so dir never
// holds a partial or unverified library. A library already verified in dir is left as it is.
func Install(ctx context.Context, dir string) error {
	if Installed(dir) == nil {
		return nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("install Move libraries: only the linux x86_64 builds are pinned (this is %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install Move libraries: %w", err)
	}
	if verify(filepath.Join(dir, CompilerLib), CompilerLib) != nil {
		lib, err := fetchCompiler(ctx)
		if err != nil {
			return fmt.Errorf("install the Move compiler from %s: %w", Package, err)
		}
		if err := place(dir, CompilerLib, lib); err != nil {
			return err
		}
	}
	if verify(filepath.Join(dir, VMLib), VMLib) != nil {
		lib, err := fetchVM(ctx)
		if err != nil {
			return fmt.Errorf("install the MoveVM from %s %s: %w", VMModule, VMVersion, err)
		}
		if err := place(dir, VMLib, lib); err != nil {
			return err
		}
	}
	return Installed(dir)
}

// place writes a verified library into dir under its name.
func place(dir, name string, lib []byte) error {
	dst := filepath.Join(dir, name)
	if err := os.WriteFile(dst+".tmp", lib, 0o755); err != nil {
		return fmt.Errorf("install %s: %w", name, err)
	}
	if err := os.Rename(dst+".tmp", dst); err != nil {
		return fmt.Errorf("install %s: %w", name, err)
	}
	return nil
}

// fetchCompiler takes the compiler out of Package's tarball.
func fetchCompiler(ctx context.Context) ([]byte, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, errors.New("npm is missing: apt-get install -y nodejs npm")
	}
	tmp, err := os.MkdirTemp("", "vipharness-movevm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, npm, "pack", Package, "--pack-destination", tmp, "--silent", "--no-audit", "--no-fund")
	cmd.Dir, cmd.Stdout, cmd.Stderr = tmp, io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm pack: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	tgz, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return nil, fmt.Errorf("npm pack left no single tarball in %s", tmp)
	}
	libs, err := extractLibraries(tgz[0])
	if err != nil {
		return nil, err
	}
	return libs[CompilerLib], nil
}

// extractLibraries reads the compiler out of the package tarball and checks it against its
// pinned sha256.
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
	want := map[string]string{"package/library/" + CompilerLib: CompilerLib}
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
		if err := checkPinned(name, b); err != nil {
			return nil, err
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
