// Package evm holds the Solidity VIP scoring contract's committed build artifacts
// (built by build.js with the solc pinned in contracts/package.json) and their tests:
// interface parity with the official contract, behaviour on a real EVM, gas figures, and
// byte-for-byte reproducibility.
package evm

import (
	"embed"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

//go:embed artifacts
var artifacts embed.FS

func read(name string) string {
	b, err := artifacts.ReadFile("artifacts/" + name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return strings.TrimSpace(string(b))
}

// ABI is the contract's ABI.
func ABI() abi.ABI {
	a, err := abi.JSON(strings.NewReader(read("VipScore.abi.json")))
	if err != nil {
		panic(err)
	}
	return a
}

// Bin is the creation bytecode (without constructor arguments).
func Bin() []byte { return common.FromHex(read("VipScore.bin")) }

// RuntimeBin is the deployed bytecode.
func RuntimeBin() []byte { return common.FromHex(read("VipScore.bin-runtime")) }
