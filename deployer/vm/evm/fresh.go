package evm

import (
	"context"
	"fmt"
	"math/big"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/deployer/keys"
)

// FundFresh gives a fresh key what gas costs at the node's gas price when the node only
// simulates for an address that has an account: Initia's minievm estimates gas from a fee
// payer that exists ("fee payer address: ... does not exist"), as the Cosmos rollups
// simulate. A value transfer from funder creates the account. On a node that estimates from
// any address (geth, the embedded chain) nothing is sent. No gas price is returned: EVM
// fees come from the node.
func (s *Contract) FundFresh(ctx context.Context, funder, fresh keys.Signer, gas uint64) (*sdk.DecCoin, error) {
	to := fresh.Address()
	_, err := s.client.EstimateGas(ctx, ethereum.CallMsg{From: to, To: &to})
	if err == nil || !ethnode.NoFeePayer(err) {
		return nil, nil
	}
	if funder == nil {
		return nil, fmt.Errorf("fund %s: the node simulates only for an address with an account, and there is no deployer key to fund it with", to.Hex())
	}
	price, err := s.client.SuggestGasPrice(ctx)
	if err != nil {
		return nil, fmt.Errorf("fund %s: read the gas price: %w", to.Hex(), err)
	}
	value := new(big.Int).Mul(new(big.Int).SetUint64(gas), price)
	if value.Sign() == 0 {
		value.SetUint64(1)
	}
	if _, _, err := s.sendValueAndWait(ctx, funder, &to, nil, value); err != nil {
		return nil, fmt.Errorf("fund %s with %s wei: %w", to.Hex(), value, err)
	}
	return nil, nil
}
