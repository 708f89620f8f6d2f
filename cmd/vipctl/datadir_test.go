package main

import (
	"testing"

	"github.com/vipharness/vipharness/deployer/vip"
)

// --data-dir is refused, naming what cannot be kept, for every engine but the embedded
// one; without it every engine choice stands as before.
func TestDataDirRefusesWhatItCannotKeep(t *testing.T) {
	for _, tc := range []struct {
		engine, dataDir string
		vm              vip.VM
		refused         string // "" when accepted
	}{
		{"embedded", "kept", vip.Wasm, ""},
		{"embedded", "kept", vip.Move, ""},
		{"", "kept", vip.Move, ""},
		{"embedded", "kept", vip.EVM, ""},
		{"embedded-geth", "kept", vip.EVM, ""},
		{"process", "kept", vip.Wasm, "the process engine's rollup cannot be kept"},
		{"container", "kept", vip.Move, "the container engine's rollup cannot be kept"},
		{"minitia", "kept", vip.Wasm, "the minitia engine's rollup cannot be kept"},
		{"embedded", "", vip.EVM, ""},
		{"process", "", vip.Wasm, ""},
	} {
		t.Run(tc.engine+"/"+string(tc.vm)+"/"+tc.dataDir, func(t *testing.T) {
			c := engineChoice{name: tc.engine, dataDir: tc.dataDir}
			expectRefusal(t, c.checkKeepable(), tc.refused)
		})
	}
}
