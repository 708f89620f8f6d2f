package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// An env file is what `localnet up` writes and what `source`, systemd's EnvironmentFile and
// `docker --env-file` read: KEY=VALUE lines, optionally after `export `, a value optionally
// in double quotes (Go/shell escapes) or single quotes (taken as is); blank lines and lines
// starting with # are skipped; a later line for a key wins. A file that does not end with a
// newline is taken as still being written and refused whole.
//
// Errors name the line number, never the line: a file holds MNEMONIC and PRIVATE_KEY.

// envFile is one read of an env file: its values and the digest of its bytes (what tells a
// changed file from the one already read).
type envFile struct {
	vals map[string]string
	sum  [sha256.Size]byte
}

// readEnvFile reads and parses the env file at path. The digest is set even when the
// content does not parse, so one malformed version is reported once.
func readEnvFile(path string) (envFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return envFile{}, fmt.Errorf("read env file %s: %w", path, err)
	}
	f := envFile{sum: sha256.Sum256(b)}
	if f.vals, err = parseEnv(b); err != nil {
		return f, fmt.Errorf("env file %s: %w", path, err)
	}
	return f, nil
}

// version names what one read of the file found (its digest and its error): a read that
// finds the same version as the last changes nothing.
func (f envFile) version(err error) string { return fmt.Sprintf("%x %v", f.sum, err) }

// parseEnv parses an env file's bytes.
func parseEnv(b []byte) (map[string]string, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("the last line has no newline: incomplete (write the file whole: to a temporary name, then rename)")
	}
	vals := map[string]string{}
	for i, raw := range bytes.Split(b, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, err := parseEnvLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		vals[k] = v
	}
	return vals, nil
}

// parseEnvLine splits one KEY=VALUE line (not blank, not a comment).
func parseEnvLine(line string) (key, val string, err error) {
	line = strings.TrimPrefix(line, "export ")
	key, val, ok := strings.Cut(line, "=")
	if !ok {
		return "", "", fmt.Errorf("not KEY=VALUE")
	}
	key = strings.TrimSpace(key)
	if !validEnvKey(key) {
		return "", "", fmt.Errorf("not a variable name before '='")
	}
	val = strings.TrimSpace(val)
	switch {
	case strings.HasPrefix(val, `"`):
		if val, err = strconv.Unquote(val); err != nil {
			return "", "", fmt.Errorf("%s: the double-quoted value does not end, or holds a bad escape", key)
		}
	case strings.HasPrefix(val, "'"):
		if len(val) < 2 || !strings.HasSuffix(val, "'") || strings.Count(val, "'") != 2 {
			return "", "", fmt.Errorf("%s: the single-quoted value does not end", key)
		}
		val = val[1 : len(val)-1]
	case strings.ContainsAny(val, " \t\"'`$\\"):
		return "", "", fmt.Errorf("%s: an unquoted value with spaces, quotes, '$' or '\\' (quote it)", key)
	}
	return key, val, nil
}

// validEnvKey reports whether k is a shell variable name.
func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i, r := range k {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
