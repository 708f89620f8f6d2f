// Package evm holds the Solidity VIP scoring contract's committed build artifacts
// (built by build.js with the solc pinned in contracts/package.json) and their tests:
// interface parity with the official contract, behaviour on a real EVM, gas figures, and
// byte-for-byte reproducibility.
package evm

import (
	"embed"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/vipharness/vipharness/contracts/evm/artifact"
)

//go:embed artifacts
var artifacts embed.FS

var contract = artifact.Contract{FS: artifacts, Name: "VipScore"}

// ABI is the contract's ABI.
func ABI() abi.ABI { return contract.ABI() }

// Bin is the creation bytecode (without constructor arguments).
func Bin() []byte { return contract.Bin() }

// RuntimeBin is the deployed bytecode.
func RuntimeBin() []byte { return contract.RuntimeBin() }
