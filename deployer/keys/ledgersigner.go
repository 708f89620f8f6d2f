package keys

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Ledger signs on a Ledger device's Ethereum app, as Initia's CLI does for eth_secp256k1 keys:
// EVM transactions with SIGN TRANSACTION, Cosmos txs in SIGN_MODE_EIP_191 with SIGN PERSONAL
// MESSAGE over the amino-JSON sign doc. Every signature is checked against the key the device
// reported before it is used.
type Ledger struct {
	app   *ledger.App
	path  Path
	pub   *ecdsa.PublicKey
	addr  common.Address
	where string
}

// DialLedger reaches a device: through Speculos' APDU port when speculos is a host:port,
// else on USB (binaries built with -tags ledgerhid).
func DialLedger(ctx context.Context, speculos string) (*ledger.App, string, error) {
	if speculos != "" {
		t, err := ledger.DialSpeculos(ctx, speculos)
		if err != nil {
			return nil, "", err
		}
		return ledger.New(t), "Speculos " + speculos, nil
	}
	h, err := ledger.OpenHID()
	if err != nil {
		return nil, "", err
	}
	return ledger.New(h), "USB", nil
}

// NewLedger reads the account at path from the device (without a confirmation) and returns
// its signer; where names the device for messages.
func NewLedger(ctx context.Context, app *ledger.App, path Path, where string) (*Ledger, error) {
	pub, addr, err := app.Address(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("read the Ledger account at %s: %w", path, err)
	}
	return &Ledger{app: app, path: path, pub: pub, addr: addr, where: where}, nil
}

// KeyType is eth_secp256k1: the Ethereum app signs with coin type 60 keys.
func (l *Ledger) KeyType() vip.KeyType { return vip.EthSecp256k1 }

// PubKey is the device key as an Initia eth_secp256k1 key.
func (l *Ledger) PubKey() cryptotypes.PubKey {
	return &ethsecp256k1.PubKey{Key: crypto.CompressPubkey(l.pub)}
}

// Address is the device account's Ethereum address.
func (l *Ledger) Address() common.Address { return l.addr }

// Path is the derivation path on the device.
func (l *Ledger) Path() Path { return l.path }

// SignEVMTx has the user confirm the transaction on the device.
func (l *Ledger) SignEVMTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return l.app.SignTx(ctx, l.path, tx, chainID, l.addr)
}

// Confirm shows the address on the device and waits for the user to confirm it.
func (l *Ledger) Confirm(ctx context.Context) error {
	_, addr, err := l.app.ConfirmAddress(ctx, l.path)
	if err != nil {
		return err
	}
	if addr != l.addr {
		return fmt.Errorf("the device shows %s at %s, not %s", addr.Hex(), l.path, l.addr.Hex())
	}
	return nil
}

// SignPersonal has the user confirm and sign msg as a personal message.
func (l *Ledger) SignPersonal(ctx context.Context, msg []byte) ([]byte, error) {
	return l.app.SignPersonal(ctx, l.path, msg, l.addr)
}

// CosmosSignMode is SIGN_MODE_EIP_191.
func (l *Ledger) CosmosSignMode() signing.SignMode { return signing.SignMode_SIGN_MODE_EIP_191 }

// SignCosmos signs EIP-191 sign bytes: the device is sent the amino-JSON doc inside them (it
// adds the prefix itself) and the signature must verify over the whole sign bytes. It returns
// R || S.
func (l *Ledger) SignCosmos(ctx context.Context, signBytes []byte) ([]byte, error) {
	doc, err := StripEIP191(signBytes)
	if err != nil {
		return nil, fmt.Errorf("ledger signs Cosmos txs in SIGN_MODE_EIP_191 only: %w", err)
	}
	sig, err := l.app.SignPersonal(ctx, l.path, doc, l.addr)
	if err != nil {
		return nil, err
	}
	if !l.PubKey().VerifySignature(signBytes, sig[:64]) {
		return nil, errors.New("ledger sign personal message: the signature does not verify over the EIP-191 sign bytes")
	}
	return sig[:64], nil
}

// Source names the device and path.
func (l *Ledger) Source() string { return fmt.Sprintf("ledger %s (%s)", l.path, l.where) }

// String shows the address and source.
func (l *Ledger) String() string { return describe(l) }

// LogValue is the address and source.
func (l *Ledger) LogValue() slog.Value { return logValue(l) }
