package evm

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// FinalizeTx finds the tx that emitted FinalizeStage(stage) from the contract. The event's
// stage is not indexed, so every FinalizeStage log of the contract is read (one per stage).
func (s *Contract) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	ev := s.abi.Events["FinalizeStage"]
	logs, err := s.client.FilterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{s.contract}, Topics: [][]common.Hash{{ev.ID}}})
	if err != nil {
		return "", fmt.Errorf("read FinalizeStage logs: %w", err)
	}
	for _, l := range logs {
		e, err := s.binding.UnpackFinalizeStageEvent(&l)
		if err != nil {
			return "", fmt.Errorf("decode FinalizeStage log in tx %s: %w", l.TxHash.Hex(), err)
		}
		if e.Stage == stage && !l.Removed {
			return l.TxHash.Hex(), nil
		}
	}
	return "", nil
}
