package cosmostx_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

const ledgerMnemonic = "test test test test test test test test test test test junk"

// tamper signs as its signer does, then changes the signature.
type tamper struct {
	keys.Signer
	sig func(ctx context.Context, signBytes []byte) ([]byte, error)
}

func (t tamper) SignCosmos(ctx context.Context, b []byte) ([]byte, error) { return t.sig(ctx, b) }

// The dev node takes a tx a Ledger signed in SIGN_MODE_EIP_191 (eth_secp256k1, amino-JSON
// sign doc behind the personal-message prefix) and refuses a signature that does not verify.
func TestLedgerSignsInEIP191(t *testing.T) {
	r, c, funder := start(t)
	ctx := context.Background()
	dev, err := standin.Start(ledgerMnemonic)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	l, err := keys.Open(ctx, keys.Deployer, keys.Spec{Ledger: true, LedgerSpeculos: dev.Addr()})
	if err != nil {
		t.Fatal(err)
	}
	ledgerAddr := c.Address(l.PubKey())
	fund := &banktypes.MsgSend{FromAddress: funder.Address, ToAddress: ledgerAddr, Amount: sdk.NewCoins(sdk.NewInt64Coin("umin", 50_000_000))}
	if _, err := c.Exec(ctx, funder, fund); err != nil {
		t.Fatal(err)
	}
	s, err := c.SignerOf(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	send := &banktypes.MsgSend{FromAddress: s.Address, ToAddress: r.Funded()[1].Address, Amount: sdk.NewCoins(sdk.NewInt64Coin("umin", 7))}
	res, err := c.Exec(ctx, s, send)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || s.Sequence != 1 {
		t.Fatalf("code %d sequence %d", res.Code, s.Sequence)
	}
	log := dev.Confirmations()
	if len(log) != 1 || log[0].Kind != "message" || !strings.Contains(strings.Join(log[0].Screens, " "), `"type":"cosmos-sdk/MsgSend"`) {
		t.Fatalf("the user saw %+v, want the amino-JSON sign doc", log)
	}

	refused := func(name string, sig func(ctx context.Context, b []byte) ([]byte, error)) {
		t.Helper()
		bad := &cosmostx.Signer{Key: tamper{Signer: l, sig: sig}, Address: s.Address, Number: s.Number, Sequence: s.Sequence}
		tx, err := c.SignTx(ctx, bad, 200_000, send)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := c.Broadcast(ctx, tx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out.Code == 0 || !strings.Contains(out.Log, "signature verification failed") {
			t.Fatalf("%s: code %d log %q, want a refused signature", name, out.Code, out.Log)
		}
	}
	refused("flipped bit", func(ctx context.Context, b []byte) ([]byte, error) {
		sig, err := l.SignCosmos(ctx, b)
		sig[10] ^= 1
		return sig, err
	})
	refused("signature without the EIP-191 prefix", func(ctx context.Context, b []byte) ([]byte, error) {
		doc, err := keys.StripEIP191(b)
		if err != nil {
			return nil, err
		}
		sw, _ := keys.FromMnemonic(ledgerMnemonic, keys.EVMPath(0))
		soft, _ := sw.Signer(vip.EthSecp256k1)
		return soft.SignCosmos(ctx, doc) // keccak of the bare doc: another message
	})
	refused("another account's key", func(ctx context.Context, b []byte) ([]byte, error) {
		sw, _ := keys.FromMnemonic(ledgerMnemonic, keys.EVMPath(1))
		soft, _ := sw.Signer(vip.EthSecp256k1)
		return soft.SignCosmos(ctx, b)
	})
}
