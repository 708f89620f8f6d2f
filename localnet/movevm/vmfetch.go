package movevm

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// fetchVM finds the MoveVM library of VMModule@VMVersion: extracted in a Go module cache
// (any `go build` of vipharness puts it there), or in the cache's copy of the module zip,
// or in the zip a Go module proxy serves (GOPROXY's, proxy.golang.org by default). Every
// copy is checked against the pinned sha256; a copy that differs is skipped.
func fetchVM(ctx context.Context) ([]byte, error) {
	var tried []string
	for _, cache := range moduleCaches() {
		p := filepath.Join(cache, filepath.FromSlash(vmEntry))
		if b, err := os.ReadFile(p); err == nil {
			if checkPinned(VMLib, b) == nil {
				return b, nil
			}
		}
		zipPath := filepath.Join(cache, "cache", "download", filepath.FromSlash(VMModule), "@v", VMVersion+".zip")
		if b, err := fromModuleZip(zipPath); err == nil {
			return b, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			tried = append(tried, err.Error())
		}
	}
	for _, proxy := range moduleProxies() {
		b, err := downloadVM(ctx, proxy)
		if err == nil {
			return b, nil
		}
		tried = append(tried, err.Error())
	}
	if len(tried) == 0 {
		return nil, errors.New("no Go module cache holds it and GOPROXY names no proxy")
	}
	return nil, errors.New(strings.Join(tried, "; "))
}

// moduleCaches are where Go keeps modules: GOMODCACHE, else each GOPATH entry's pkg/mod,
// else ~/go/pkg/mod (Go's defaults).
func moduleCaches() []string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return []string{d}
	}
	var out []string
	for _, p := range filepath.SplitList(os.Getenv("GOPATH")) {
		if p != "" {
			out = append(out, filepath.Join(p, "pkg", "mod"))
		}
	}
	if len(out) == 0 {
		if home, err := os.UserHomeDir(); err == nil {
			out = append(out, filepath.Join(home, "go", "pkg", "mod"))
		}
	}
	return out
}

// moduleProxies are GOPROXY's proxy URLs (not "direct" or "off"), proxy.golang.org when unset.
func moduleProxies() []string {
	v := os.Getenv("GOPROXY")
	if v == "" {
		v = "https://proxy.golang.org,direct"
	}
	var out []string
	for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '|' }) {
		if p = strings.TrimSpace(p); p != "direct" && p != "off" && p != "" {
			out = append(out, strings.TrimRight(p, "/"))
		}
	}
	return out
}

// downloadVM fetches the module zip from proxy into a temporary file and takes the library
// out of it.
func downloadVM(ctx context.Context, proxy string) ([]byte, error) {
	url := proxy + "/" + strings.ToLower(VMModule) + "/@v/" + VMVersion + ".zip"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.CreateTemp("", "vipharness-movevm-*.zip")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	b, err := fromModuleZip(f.Name())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return b, nil
}

// fromModuleZip reads the library out of a module zip and checks it.
func fromModuleZip(path string) ([]byte, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != vmEntry {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("read %s from %s: %w", f.Name, filepath.Base(path), err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s from %s: %w", f.Name, filepath.Base(path), err)
		}
		if err := checkPinned(VMLib, b); err != nil {
			return nil, fmt.Errorf("%s in %s: %w", f.Name, filepath.Base(path), err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("%s holds no %s; nothing installed", filepath.Base(path), vmEntry)
}

// checkPinned compares a library's bytes with its pinned sha256.
func checkPinned(name string, b []byte) error {
	pin, _ := pinned(name)
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != pin {
		return fmt.Errorf("%s has sha256 %s, pinned %s; nothing installed", name, got, pin)
	}
	return nil
}
