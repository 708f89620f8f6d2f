package keys

import (
	"fmt"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/vip"
)

// PathFor is the BIP44 path of a key of kind k at account index: m/44'/<coin>'/0'/0/<index>.
func PathFor(k vip.KeyType, index uint32) Path {
	if k == vip.EthSecp256k1 {
		return EVMPath(index)
	}
	return CosmosPath(index)
}

// PrivKeyFromBytes wraps a 32-byte secret as a Cosmos key of the given kind ("" is secp256k1).
func PrivKeyFromBytes(secret []byte, kind vip.KeyType) (cryptotypes.PrivKey, error) {
	if len(secret) != 32 {
		return nil, fmt.Errorf("private key must be 32 bytes, got %d", len(secret))
	}
	switch kind {
	case vip.Secp256k1, "":
		return &secp256k1.PrivKey{Key: secret}, nil
	case vip.EthSecp256k1:
		return ethsecp256k1.NewPrivKey(secret)
	}
	return nil, fmt.Errorf("unknown key type %q", kind)
}
