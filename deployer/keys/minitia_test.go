package keys_test

import (
	"encoding/hex"
	"fmt"

	"github.com/99designs/keyring"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	cryptocodec "github.com/cosmos/cosmos-sdk/crypto/codec"
	"github.com/cosmos/cosmos-sdk/crypto/hd"
	cosmoskeyring "github.com/cosmos/cosmos-sdk/crypto/keyring"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/go-bip39"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
)

// minitiaEthAlgo is Initia's eth_secp256k1 signing algorithm as its keyring option declares
// it (name eth_secp256k1, the SDK's BIP32 derivation, the key wrapped as ethsecp256k1), here
// so the tests write keyrings the way minitiad does.
type minitiaEthAlgo struct{}

func (minitiaEthAlgo) Name() hd.PubKeyType { return "eth_secp256k1" }

func (minitiaEthAlgo) Derive() hd.DeriveFn {
	return func(mnemonic, passphrase, path string) ([]byte, error) {
		seed, err := bip39.NewSeedWithErrorChecking(mnemonic, passphrase)
		if err != nil {
			return nil, err
		}
		master, chain := hd.ComputeMastersFromSeed(seed)
		return hd.DerivePrivateKeyForPath(master, chain, path)
	}
}

func (minitiaEthAlgo) Generate() hd.GenerateFn {
	return func(bz []byte) cryptotypes.PrivKey { k, _ := ethsecp256k1.NewPrivKey(bz); return k }
}

// writeRecord stores a record as the SDK keystore does: the proto record under NAME.info and
// the address index under HEXADDR.address.
func writeRecord(kr cosmoskeyring.Keyring, rec *cosmoskeyring.Record) error {
	db, ok := kr.(interface{ SetItem(keyring.Item) error })
	if !ok {
		return fmt.Errorf("keyring %T cannot store items", kr)
	}
	bz, err := recordCodec().Marshal(rec)
	if err != nil {
		return err
	}
	addr, err := rec.GetAddress()
	if err != nil {
		return err
	}
	if err := db.SetItem(keyring.Item{Key: rec.Name + ".info", Data: bz}); err != nil {
		return err
	}
	return db.SetItem(keyring.Item{Key: hex.EncodeToString(addr) + ".address", Data: []byte(rec.Name + ".info")})
}

func recordCodec() codec.Codec {
	reg := codectypes.NewInterfaceRegistry()
	cryptocodec.RegisterInterfaces(reg)
	ethsecp256k1.RegisterInterfaces(reg)
	return codec.NewProtoCodec(reg)
}
