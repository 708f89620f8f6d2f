package sidebyside_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
)

// txRefusalsProbe sends the txs a client's mistakes make, each to the mempool
// (broadcast_tx_sync) or, when it passes there, into a block: a sequence ahead of the
// account's, a fee under the minimum, gas above the block's limit, a message for a contract
// or module that is not there. Compared: each answer's code, codespace and words (figures and
// addresses masked).
var txRefusalsProbe = probe{name: "Cosmos txs a client gets wrong", vms: []vip.VM{vip.Wasm, vip.Move}, ask: txRefusals, timeout: 2 * time.Minute}

func txRefusals(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, s, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	send := &banktypes.MsgSend{FromAddress: s.Address, ToAddress: c.Enc.MustAddr(fresh().Bytes()), Amount: sdk.NewCoins(sdk.NewInt64Coin(c.GasPrice().Denom, 1))}
	var parts []string
	check := func(name string, sign func() ([]byte, error)) error {
		tx, err := sign()
		if err != nil {
			return fmt.Errorf("%s: sign: %w", name, err)
		}
		res, err := c.Broadcast(ctx, tx)
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s: broadcast error %s", name, masked(err.Error())))
			return nil
		}
		parts = append(parts, fmt.Sprintf("%s: check code %d %q %q", name, res.Code, res.Codespace, masked(firstLine(res.Log))))
		return nil
	}
	if err := check("sequence ahead", func() ([]byte, error) { return c.SignAt(ctx, s, s.Sequence+5, 200_000, send) }); err != nil {
		return answer{}, err
	}
	cheap := c.WithGasPrice(sdk.NewDecCoinFromDec(c.GasPrice().Denom, sdkmath.LegacyNewDecWithPrec(1, 6)))
	if err := check("fee under the minimum", func() ([]byte, error) { return cheap.SignTx(ctx, s, 200_000, send) }); err != nil {
		return answer{}, err
	}
	if err := check("no fee", func() ([]byte, error) {
		return c.WithGasPrice(sdk.NewDecCoin(c.GasPrice().Denom, sdkmath.ZeroInt())).SignTx(ctx, s, 200_000, send)
	}); err != nil {
		return answer{}, err
	}
	if err := check("gas of zero", func() ([]byte, error) { return c.SignTx(ctx, s, 0, send) }); err != nil {
		return answer{}, err
	}
	var missing sdk.Msg
	switch r.VM() {
	case vip.Wasm:
		missing = &wasmtypes.MsgExecuteContract{Sender: s.Address, Contract: c.Enc.MustAddr(make([]byte, 32)), Msg: []byte(`{}`)}
	case vip.Move:
		missing = &initiamove.MsgExecute{Sender: s.Address, ModuleAddress: "0x42", ModuleName: "nothing", FunctionName: "here"}
	}
	res, err := c.Send(ctx, s, 300_000, missing)
	if err != nil {
		return answer{}, fmt.Errorf("a message for nothing: %w", err)
	}
	parts = append(parts, fmt.Sprintf("a message for nothing: code %d %q %q", res.Code, res.Codespace, masked(firstLine(res.RawLog))))
	return answer{Value: strings.Join(parts, "\n")}, nil
}
