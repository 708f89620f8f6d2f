package cosmostx

import (
	"context"
	"fmt"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// FeeFunds is enough of the fee denom to pay for txs of gas in all (at least one unit, so a
// chain with free gas still creates the account).
func (c *Client) FeeFunds(gas uint64) sdk.Coins {
	if fee := c.Fee(gas); !fee.IsZero() {
		return fee
	}
	return sdk.NewCoins(sdk.NewCoin(c.gasPrice.Denom, sdkmath.OneInt()))
}

// Fund sends amount from s to the account to (bank MsgSend) and waits for the tx: a fresh
// key then has an account the chain can simulate its txs for.
func (c *Client) Fund(ctx context.Context, s *Signer, to string, amount sdk.Coins) error {
	if _, err := c.Exec(ctx, s, &banktypes.MsgSend{FromAddress: s.Address, ToAddress: to, Amount: amount}); err != nil {
		return fmt.Errorf("fund %s with %s: %w", to, amount, err)
	}
	return nil
}
