// Package wasm ships the compiled VIP score CosmWasm contract.
//
// The Rust sources are in src/; build.sh rebuilds artifacts/vip_score.wasm
// byte for byte with Debian's rustc 1.63 and binaryen 108. The messages,
// queries, events and storage layout are those of initia-labs/vip-score-wasm.
package wasm

import (
	"bytes"
	_ "embed"
	"strings"
)

//go:embed artifacts/vip_score.wasm
var code []byte

//go:embed artifacts/vip_score.wasm.sha256
var checksumLine string

// Code returns a copy of the contract's Wasm bytecode.
func Code() []byte { return bytes.Clone(code) }

// Checksum returns the lowercase hex SHA-256 of Code recorded by build.sh,
// which is also the code checksum wasmd reports after upload.
func Checksum() string {
	fields := strings.Fields(checksumLine)
	if len(fields) == 0 {
		return ""
	}
	return fields[0]
}
