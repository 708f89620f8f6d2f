package evm

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/vip"
)

// RevertError is a contract revert decoded against the contract's ABI: a custom error
// (PermissionDenied, StageFinalized, ...), a require reason or a panic code.
type RevertError struct {
	Name string // the custom error name, "Error" for a reason string, "Panic", or "" if unknown
	Args []any
	Data []byte // the raw revert data
	// Inferred is a refusal named from the contract's state because the node returned no
	// revert data (minievm): the name the contract's own check would give.
	Inferred bool
}

var _ vip.ContractError = (*RevertError)(nil)

// Reason is the custom error's name ("StageFinalized"), "Error" for a reason string, "Panic"
// for a panic code, or "" when the revert data is not the contract's.
func (e *RevertError) Reason() string { return e.Name }

// Trapped reports a Solidity panic (an assert, an overflow): a crash, not a refusal.
func (e *RevertError) Trapped() bool { return e.Name == "Panic" }

func (e *RevertError) Error() string {
	if e.Name == "" {
		if len(e.Data) == 0 {
			return "execution reverted"
		}
		return "execution reverted with unknown data 0x" + hex.EncodeToString(e.Data)
	}
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = fmt.Sprint(a)
	}
	msg := fmt.Sprintf("execution reverted: %s(%s)", e.Name, strings.Join(args, ", "))
	if e.Inferred {
		msg += " (named from the contract's state: the node returned no revert data)"
	}
	return msg
}

// decodeRevert turns revert data carried by an RPC error into a *RevertError; other errors
// come back unchanged.
func decodeRevert(contract *abi.ABI, err error) error {
	if err == nil {
		return nil
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		return err
	}
	s, ok := de.ErrorData().(string)
	if !ok {
		return err
	}
	data, decErr := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if decErr != nil {
		return err
	}
	return revertFromData(contract, data)
}

func revertFromData(contract *abi.ABI, data []byte) *RevertError {
	re := &RevertError{Data: data}
	if len(data) < 4 {
		return re
	}
	if reason, err := abi.UnpackRevert(data); err == nil {
		re.Name, re.Args = "Error", []any{reason}
		if strings.HasPrefix(reason, "panic:") || hex.EncodeToString(data[:4]) == "4e487b71" {
			re.Name = "Panic"
		}
		return re
	}
	for _, e := range contract.Errors {
		if string(e.ID[:4]) != string(data[:4]) {
			continue
		}
		args, err := e.Inputs.Unpack(data[4:])
		if err != nil {
			return re
		}
		re.Name, re.Args = e.Name, args
		return re
	}
	return re
}

// DecodeRevert decodes the revert data an RPC error carries against the VipScore ABI.
func DecodeRevert(err error) error {
	parsed := vipscore.NewVipScore().GetABI()
	return decodeRevert(&parsed, err)
}
