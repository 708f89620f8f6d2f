// Package tasks is what vipctl's commands do, as functions a team's own program can call:
// each takes one options value, validates it once (a *deployer.ConfigError names the
// field, never a flag) and returns a result for the caller to word. cmd/vipctl parses flags
// into these options and prints what comes back.
package tasks
