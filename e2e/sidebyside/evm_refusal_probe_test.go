package sidebyside_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/localnet"
)

// evmSendRefusals sends the raw txs a client's mistakes make, after one good transfer so the
// sender has a nonce behind it: a nonce already used (another tx), a gas price under the
// minimum, another chain's id, a sender with no coins; or, with gethFees, a gas limit under a
// transfer's intrinsic gas and more value than the sender holds. Compared: each refusal's
// JSON-RPC code and words (figures and addresses masked), or that it was taken.
var (
	evmSendRefusalsProbe = evmProbe("JSON-RPC eth_sendRawTransaction of txs a client gets wrong", func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return evmSendRefusals(ctx, r, false)
	})
	// evmGasRefusalsProbe: a gas limit under a transfer's intrinsic gas, and a value above the
	// balance (a known difference: geth's pool judges both by geth's gas and balance rules).
	evmGasRefusalsProbe = evmProbe("JSON-RPC eth_sendRawTransaction of txs short of gas or coins", func(ctx context.Context, r localnet.Rollup) (answer, error) {
		return evmSendRefusals(ctx, r, true)
	})
)

type refusalCase struct {
	name    string
	signer  *ecdsa.PrivateKey
	chainID *big.Int
	tx      *types.LegacyTx
}

func evmSendRefusals(ctx context.Context, r localnet.Rollup, gethFees bool) (answer, error) {
	c, key, price, err := fundedSender(ctx, r)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	to := shapesRecipient
	if _, _, err := sendAndWait(ctx, c, key, ethereumCall(from, to), func(nonce, gas uint64, _ *big.Int) types.TxData {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: big.NewInt(1)}
	}); err != nil {
		return answer{}, fmt.Errorf("a good transfer first: %w", err)
	}
	nonce, chainID, gas, err := txParams(ctx, c, ethereumCall(from, to))
	if err != nil {
		return answer{}, err
	}
	broke, err := crypto.GenerateKey()
	if err != nil {
		return answer{}, err
	}
	balance, err := c.BalanceAt(ctx, from, nil)
	if err != nil {
		return answer{}, err
	}
	legacy := func(nonce uint64, price *big.Int, gas uint64, value *big.Int) *types.LegacyTx {
		return &types.LegacyTx{Nonce: nonce, GasPrice: price, Gas: gas, To: &to, Value: value}
	}
	one := big.NewInt(1)
	cases := []refusalCase{
		{"a used nonce", key, chainID, legacy(nonce-1, price, gas, big.NewInt(2))},
		{"a gas price under the minimum", key, chainID, legacy(nonce, one, gas, one)},
		{"another chain's id", key, new(big.Int).Add(chainID, one), legacy(nonce, price, gas, one)},
		{"a sender with no coins", broke, chainID, legacy(0, price, gas, one)},
	}
	if gethFees {
		cases = []refusalCase{
			{"gas under a transfer's intrinsic gas", key, chainID, legacy(nonce, price, 20_000, one)},
			{"more value than the sender holds", key, chainID, legacy(nonce, price, gas, new(big.Int).Mul(balance, big.NewInt(2)))},
		}
	}
	var parts []string
	for _, tc := range cases {
		tx, err := types.SignNewTx(tc.signer, types.NewEIP155Signer(tc.chainID), tc.tx)
		if err != nil {
			return answer{}, fmt.Errorf("%s: %w", tc.name, err)
		}
		err = c.SendTransaction(ctx, tx)
		a, ok := sendAnswer(err)
		if !ok {
			return answer{}, fmt.Errorf("%s: %w", tc.name, err)
		}
		parts = append(parts, tc.name+": "+a)
	}
	return answer{Value: strings.Join(parts, "\n")}, nil
}
