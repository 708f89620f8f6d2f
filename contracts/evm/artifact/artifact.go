// Package artifact reads a Solidity contract's committed build artifacts (its ABI, creation
// and runtime bytecode, as contracts/evm/build.js writes them) from an embedded folder.
package artifact

import (
	"embed"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Contract is one contract's artifacts: <Name>.abi.json, <Name>.bin and <Name>.bin-runtime
// under artifacts/ in FS.
type Contract struct {
	FS   embed.FS
	Name string
}

func (c Contract) read(ext string) string {
	b, err := c.FS.ReadFile("artifacts/" + c.Name + ext)
	if err != nil {
		panic(err) // embedded at build time
	}
	return strings.TrimSpace(string(b))
}

// ABI is the contract's ABI.
func (c Contract) ABI() abi.ABI {
	a, err := abi.JSON(strings.NewReader(c.read(".abi.json")))
	if err != nil {
		panic(err) // the committed ABI is checked by the rebuild test
	}
	return a
}

// Bin is the creation bytecode (without constructor arguments).
func (c Contract) Bin() []byte { return common.FromHex(c.read(".bin")) }

// RuntimeBin is the deployed bytecode.
func (c Contract) RuntimeBin() []byte { return common.FromHex(c.read(".bin-runtime")) }
