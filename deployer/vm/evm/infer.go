package evm

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/vipharness/vipharness/bindings/ethnode"
)

// Initia's minievm drops a revert's data: eth_call answers {"code":-32000,"message":
// "Reverted"} and eth_estimateGas "failed to execute message; message index: 0: Reverted",
// and it has no debug_traceCall. So a bare revert of a call to the scoring contract is
// explained from what the chain does show: the contract's state, read as the contract checks
// it (the allow list, then the lengths, then the stage). When the state shows no cause, the
// error says so and what it read, never a pass.

// bareRevert reports an error that says a call reverted and carries no revert data.
func bareRevert(err error) bool {
	if err == nil {
		return false
	}
	var re *RevertError
	if errors.As(err, &re) {
		return re.Name == "" && len(re.Data) == 0
	}
	return ethnode.RevertedWithoutData(err)
}

// revertOf is a decoded revert, or for a bare one the refusal the contract's state explains.
// from, to and data are the call that reverted (to nil: a deploy).
func (s *Contract) revertOf(ctx context.Context, from common.Address, to *common.Address, data []byte, err error) error {
	err = decodeRevert(s.abi, err)
	if !bareRevert(err) {
		return err
	}
	inferred, why := s.infer(ctx, from, to, data)
	if inferred != nil {
		return inferred
	}
	return fmt.Errorf("%w (the node returned no revert data, and the contract's state shows no cause: %s)", err, why)
}

// infer names the contract's refusal of a call from the state it checks, in the order it
// checks it; why says what was read when nothing explains it.
func (s *Contract) infer(ctx context.Context, from common.Address, to *common.Address, data []byte) (*RevertError, string) {
	if to == nil { // the constructor: initStage 0 is the one refusal
		if len(data) < 32 {
			return nil, "creation code without a constructor argument"
		}
		args, err := s.abi.Constructor.Inputs.Unpack(data[len(data)-32:])
		if err == nil && len(args) == 1 && args[0] == uint64(0) {
			return inferred("ZeroStage"), ""
		}
		return nil, "the constructor's initial stage is not 0"
	}
	if *to != s.contract || len(data) < 4 {
		return nil, "a call to another contract"
	}
	m, err := s.abi.MethodById(data[:4])
	if err != nil {
		return nil, "an unknown function"
	}
	args, err := m.Inputs.Unpack(data[4:])
	if err != nil {
		return nil, "arguments that do not decode"
	}
	out, err := s.call(ctx, s.binding.PackAllowList(from))
	var allowed bool
	if err == nil {
		allowed, err = s.binding.UnpackAllowList(out)
	}
	if err != nil {
		return nil, "the allow list could not be read: " + err.Error()
	}
	if !allowed {
		return inferred("PermissionDenied", from), ""
	}
	saw := fmt.Sprintf("%s is on the allow list", from.Hex())
	if m.Name == "updateScores" && len(args) == 3 {
		addrs, _ := args[1].([]common.Address)
		amounts, _ := args[2].([]uint64)
		if len(addrs) != len(amounts) {
			return inferred("AddrsAndAmountsLengthMistmatch"), ""
		}
	}
	if len(args) == 0 {
		return nil, saw
	}
	stage, ok := args[0].(uint64)
	if !ok {
		return nil, saw
	}
	info, err := s.StageInfo(ctx, stage)
	if err != nil {
		return nil, saw + "; the stage could not be read: " + err.Error()
	}
	switch {
	case stage == 0 || !info.Exists: // stages(0) reads as stage 0: the contract finds none
		return inferred("StageNotFound", stage), ""
	case info.Finalized:
		return inferred("StageFinalized", stage), ""
	}
	return nil, fmt.Sprintf("%s; stage %d exists and is open (total %d)", saw, stage, info.TotalScore)
}

func inferred(name string, args ...any) *RevertError {
	return &RevertError{Name: name, Args: args, Inferred: true}
}
