package evm

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
)

// SimulateMismatch calls updateScores with two addresses and one score from the operator
// (eth_call: nothing is sent) and returns the contract's refusal. The deployer never builds
// such a call; conformance checks use it to see AddrsAndAmountsLengthMistmatch.
func (s *Contract) SimulateMismatch(ctx context.Context, stage uint64) error {
	if err := s.needContract(); err != nil {
		return err
	}
	if err := s.needKey(s.operatorKey, "operator"); err != nil {
		return err
	}
	addrs := []common.Address{common.HexToAddress("0x1111111111111111111111111111111111111111"), common.HexToAddress("0x2222222222222222222222222222222222222222")}
	data := s.binding.PackUpdateScores(stage, addrs, []uint64{1})
	to := s.contract
	from := s.operatorKey.Address()
	_, err := s.client.CallContract(ctx, ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
	if err == nil {
		return nil
	}
	return s.revertOf(ctx, from, &to, data, err)
}

// SimulateWrite calls updateScores(stage, [], []) from the operator (eth_call: nothing is
// sent, and the update would change nothing) and returns the contract's refusal, if any.
func (s *Contract) SimulateWrite(ctx context.Context, stage uint64) error {
	if err := s.needContract(); err != nil {
		return err
	}
	if err := s.needKey(s.operatorKey, "operator"); err != nil {
		return err
	}
	data, err := s.binding.TryPackUpdateScores(stage, []common.Address{}, []uint64{})
	if err != nil {
		return fmt.Errorf("encode an empty updateScores: %w", err)
	}
	to := s.contract
	from := s.operatorKey.Address()
	_, err = s.client.CallContract(ctx, ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
	if err == nil {
		return nil
	}
	return s.revertOf(ctx, from, &to, data, err)
}

// TxEventNames lists the names of the contract's events in a mined tx's logs, in order
// (logs of other contracts, or with topics the interface does not define, are left out).
func (s *Contract) TxEventNames(ctx context.Context, txHash string) ([]string, error) {
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

// CheckInterface reads the contract's runtime code and checks that it dispatches every
// function of the official interface (each 4-byte selector is pushed by the dispatcher).
func (s *Contract) CheckInterface(ctx context.Context) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	code, err := s.client.CodeAt(ctx, s.contract, nil)
	if err != nil {
		return "", fmt.Errorf("read the code at %s: %w", s.contract.Hex(), err)
	}
	if len(code) == 0 {
		return "", fmt.Errorf("no contract code at %s", s.contract.Hex())
	}
	var missing []string
	for _, m := range s.abi.Methods {
		if !bytes.Contains(code, append([]byte{0x63}, m.ID...)) { // PUSH4 selector
			missing = append(missing, m.Sig)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return "", fmt.Errorf("the code at %s does not dispatch %s", s.contract.Hex(), strings.Join(missing, ", "))
	}
	return fmt.Sprintf("%d functions of the official interface dispatched", len(s.abi.Methods)), nil
}
