package evm

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// SimulateMismatch calls updateScores with two addresses and one score from the operator
// (eth_call: nothing is sent) and returns the contract's refusal. The deployer never builds
// such a call; conformance checks use it to see AddrsAndAmountsLengthMistmatch.
func (s *Scorer) SimulateMismatch(ctx context.Context, stage uint64) error {
	if err := s.needContract(); err != nil {
		return err
	}
	if err := s.needKey(s.operatorKey, "operator"); err != nil {
		return err
	}
	addrs := []common.Address{common.HexToAddress("0x1111111111111111111111111111111111111111"), common.HexToAddress("0x2222222222222222222222222222222222222222")}
	data := s.binding.PackUpdateScores(stage, addrs, []uint64{1})
	to := s.contract
	_, err := s.client.CallContract(ctx, ethereum.CallMsg{From: crypto.PubkeyToAddress(s.operatorKey.PublicKey), To: &to, Data: data}, nil)
	if err == nil {
		return nil
	}
	return decodeRevert(s.abi, err)
}

// TxEventNames lists the names of the contract's events in a mined tx's logs, in order
// (logs of other contracts, or with topics the interface does not define, are left out).
func (s *Scorer) TxEventNames(ctx context.Context, txHash string) ([]string, error) {
	rc, err := s.client.TransactionReceipt(ctx, common.HexToHash(txHash))
	if err != nil {
		return nil, fmt.Errorf("receipt of %s: %w", txHash, err)
	}
	var names []string
	for _, l := range rc.Logs {
		if l.Address != s.contract || len(l.Topics) == 0 {
			continue
		}
		if ev, err := s.abi.EventByID(l.Topics[0]); err == nil {
			names = append(names, ev.Name)
		}
	}
	return names, nil
}
