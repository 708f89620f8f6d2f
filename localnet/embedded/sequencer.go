package embedded

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/localnet/evmrest"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// sequencer is the validator opchild lists on a minievm made by minitiad init: the
// sequencer, operated by the genesis admin key (here the funded key) under the node's
// moniker (as the project's Cosmos rollups name theirs), with the power opchild's genesis
// gives. The embedded chain seals its blocks itself; its consensus key is derived from the
// funded key, so a chain resumed from its datadir lists the same validator.
func sequencer(admin *ecdsa.PrivateKey) *feeroutes.Validator {
	seed := sha256.Sum256(append([]byte("vipharness sequencer consensus key\x00"), crypto.FromECDSA(admin)...))
	pub := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
	operator, err := bech32.ConvertAndEncode(evmrest.Prefix+"valoper", crypto.PubkeyToAddress(admin.PublicKey).Bytes())
	if err != nil {
		panic(fmt.Sprintf("sequencer operator address: %v", err)) // a 20-byte address always encodes
	}
	return &feeroutes.Validator{Moniker: minitia.Moniker, OperatorAddress: operator,
		ConsensusPubkey: feeroutes.Ed25519Key(pub), ConsPower: feeroutes.SequencerConsPower}
}
