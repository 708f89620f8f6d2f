package localnet

import (
	"os"
	"path/filepath"
	"strings"
)

// CacheDir is where set-up puts one kind of thing (node binaries, Initia's Move libraries):
// .cache/<name> in a vipharness checkout (`make setup`, `make nodes`), else
// <user cache dir>/vipharness/<name> (`vipctl setup`), so an installed vipctl works from any
// directory.
func CacheDir(name string) string {
	return CacheDirs(name)[0]
}

// CacheDirs are the places to look for one kind of thing, in order: the checkout's
// .cache/<name> when the working directory is inside one, then the user cache directory.
func CacheDirs(name string) []string {
	var dirs []string
	if root, ok := ModuleRoot(); ok {
		dirs = append(dirs, filepath.Join(root, ".cache", name))
	}
	if user, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(user, "vipharness", name))
	}
	if len(dirs) == 0 {
		// No checkout and no HOME: the working directory is the last resort.
		dirs = append(dirs, filepath.Join(".cache", name))
	}
	return dirs
}

// ModuleRoot is the nearest directory at or above the working directory holding
// vipharness's go.mod (tests run in their package directory); ok is false outside a
// checkout.
func ModuleRoot() (string, bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/vipharness/vipharness\n") {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}
