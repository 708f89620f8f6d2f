// Package feetoken holds the committed build artifacts of FeeToken.sol, the native fee coin
// of the local EVM rollup: as on Initia's minievm, the fee denom is an ERC-20 whose balances
// the chain itself moves with sudo calls (sudoTransfer, sudoMint, sudoBurn) from its reserved
// address 0x1. contracts/evm/build.js builds it with the solc pinned in
// contracts/package.json, and contracts/evm's rebuild test (build.js --check) checks the
// artifacts byte for byte.
package feetoken

import (
	"embed"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/vipharness/vipharness/contracts/evm/artifact"
)

//go:embed artifacts
var artifacts embed.FS

var contract = artifact.Contract{FS: artifacts, Name: "FeeToken"}

// ABI is the contract's ABI.
func ABI() abi.ABI { return contract.ABI() }

// Bin is the creation bytecode (without constructor arguments).
func Bin() []byte { return contract.Bin() }

// RuntimeBin is the deployed bytecode.
func RuntimeBin() []byte { return contract.RuntimeBin() }

// DeployInput is the creation transaction's data: Bin followed by the ABI-encoded
// constructor arguments.
func DeployInput(name, symbol string, decimals uint8) []byte {
	args, err := ABI().Pack("", name, symbol, decimals)
	if err != nil {
		panic(err) // the arguments' Go types match the constructor's
	}
	return append(Bin(), args...)
}
