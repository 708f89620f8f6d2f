package localnet

import (
	"os"
	"path/filepath"
	"strings"
)

// CacheDir is the project's cache folder for things `make` builds or installs (node
// binaries, Initia's Move libraries): .cache/<name> in the module root.
func CacheDir(name string) string {
	return filepath.Join(moduleRoot(), ".cache", name)
}

// moduleRoot is the nearest directory above the working directory holding vipharness's
// go.mod (tests run in their package directory), else the working directory.
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/vipharness/vipharness\n") {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}
