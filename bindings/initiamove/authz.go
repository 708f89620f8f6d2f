package initiamove

import (
	"context"
	"slices"
	"strings"

	errorsmod "cosmossdk.io/errors"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/x/authz"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// The authorizations follow Initia's x/move (its types/authz.go, read for the rules and the
// error words): the same checks, matching and gas per step, so a grant accepts on a local
// rollup exactly what it accepts on a real one.

var (
	_ authz.Authorization = &PublishAuthorization{}
	_ authz.Authorization = &ExecuteAuthorization{}
)

// Gas x/move charges while matching a message against a grant.
const (
	gasPerMatchTest     = 100
	gasPerIteration     = 10
	gasPerReadModuleTag = 1000
)

// Limits of an ExecuteAuthorization's items.
const (
	maxModuleNameLen   = 64
	maxFunctionNames   = 16
	maxFunctionNameLen = 64
)

// MsgTypeURL is MsgPublish's.
func (a PublishAuthorization) MsgTypeURL() string { return sdk.MsgTypeURL(&MsgPublish{}) }

// ValidateBasic refuses an empty list or an empty name.
func (a PublishAuthorization) ValidateBasic() error {
	if len(a.ModuleNames) == 0 {
		return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "module names cannot be empty")
	}
	for _, n := range a.ModuleNames {
		if n == "" {
			return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "invalid module names")
		}
	}
	return nil
}

// ModuleNamer reads a compiled module's name (the MoveVM library does).
type ModuleNamer func(code []byte) (string, error)

// ReadModuleName is what PublishAuthorization uses to name a module being published; the
// app sets it to the VM's reader. Unset, every publish under the grant is refused.
var ReadModuleName ModuleNamer

// Accept allows a MsgPublish whose every module's name matches a granted pattern.
func (a PublishAuthorization) Accept(ctx context.Context, msg sdk.Msg) (authz.AcceptResponse, error) {
	m, ok := msg.(*MsgPublish)
	if !ok {
		return authz.AcceptResponse{}, sdkerrors.ErrInvalidRequest.Wrap("unknown msg type")
	}
	meter := sdk.UnwrapSDKContext(ctx).GasMeter()
	for _, code := range m.CodeBytes {
		meter.ConsumeGas(gasPerIteration, "publish authorization iteration")
		if len(code) == 0 {
			return authz.AcceptResponse{}, sdkerrors.ErrInvalidRequest.Wrap("empty module bytes")
		}
		meter.ConsumeGas(gasPerReadModuleTag, "read move module info")
		if ReadModuleName == nil {
			return authz.AcceptResponse{}, sdkerrors.ErrUnauthorized.Wrap("code bytes are not valid")
		}
		name, err := ReadModuleName(code)
		if err != nil {
			return authz.AcceptResponse{}, sdkerrors.ErrUnauthorized.Wrap("code bytes are not valid")
		}
		meter.ConsumeGas(gasPerMatchTest, "publish authorization match test")
		if !matchesAny(name, a.ModuleNames) {
			return authz.AcceptResponse{}, sdkerrors.ErrUnauthorized.Wrap("unauthorized")
		}
	}
	return authz.AcceptResponse{Accept: true}, nil
}

// MsgTypeURL is MsgExecute's.
func (a ExecuteAuthorization) MsgTypeURL() string { return sdk.MsgTypeURL(&MsgExecute{}) }

// ValidateBasic refuses empty or overlong names, duplicate functions within an item, and a
// module named twice.
func (a ExecuteAuthorization) ValidateBasic() error {
	modules := map[string][]string{}
	for _, it := range a.Items {
		if l := len(it.ModuleName); l == 0 {
			return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "empty module name")
		} else if l > maxModuleNameLen {
			return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "module name too long: %d > %d", l, maxModuleNameLen)
		}
		if l := len(it.FunctionNames); l == 0 {
			return errorsmod.Wrap(sdkerrors.ErrInvalidRequest, "empty function names")
		} else if l > maxFunctionNames {
			// x/move's message names the per-name length limit here; kept as it answers.
			return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "function names too long: %d > %d", l, maxFunctionNameLen)
		}
		seen := map[string]bool{}
		for _, fn := range it.FunctionNames {
			if l := len(fn); l == 0 {
				return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "empty function name")
			} else if l > maxFunctionNameLen {
				return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "function name too long: %d > %d", l, maxFunctionNameLen)
			}
			if seen[fn] {
				return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "duplicate function name: %s", fn)
			}
			seen[fn] = true
		}
		if slices.Contains(modules[it.ModuleAddress], it.ModuleName) {
			return errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "duplicate module name: %s", it.ModuleName)
		}
		modules[it.ModuleAddress] = append(modules[it.ModuleAddress], it.ModuleName)
	}
	return nil
}

// moduleAddress reads a module address as x/move does: 0x-hex (a Move address, as its
// account bytes) or bech32 with the chain's account prefix.
func moduleAddress(s string) (sdk.AccAddress, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		a, err := movebcs.ParseAddress(s)
		if err != nil {
			return nil, err
		}
		return a.AccountBytes(), nil
	}
	return sdk.AccAddressFromBech32(s)
}

// Accept allows a MsgExecute of a granted module whose function matches a granted pattern.
func (a ExecuteAuthorization) Accept(ctx context.Context, msg sdk.Msg) (authz.AcceptResponse, error) {
	m, ok := msg.(*MsgExecute)
	if !ok {
		return authz.AcceptResponse{}, sdkerrors.ErrInvalidRequest.Wrap("unknown msg type")
	}
	target, err := moduleAddress(m.ModuleAddress)
	if err != nil {
		return authz.AcceptResponse{}, errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "invalid module address: %s", m.ModuleAddress)
	}
	meter := sdk.UnwrapSDKContext(ctx).GasMeter()
	for _, it := range a.Items {
		addr, err := moduleAddress(it.ModuleAddress)
		if err != nil {
			return authz.AcceptResponse{}, errorsmod.Wrapf(sdkerrors.ErrInvalidRequest, "invalid module address: %s", it.ModuleAddress)
		}
		meter.ConsumeGas(gasPerIteration, "execute authorization iteration")
		if !target.Equals(addr) || m.ModuleName != it.ModuleName {
			continue
		}
		meter.ConsumeGas(gasPerMatchTest, "execute authorization match test")
		if matchesAny(m.FunctionName, it.FunctionNames) {
			return authz.AcceptResponse{Accept: true}, nil
		}
	}
	return authz.AcceptResponse{}, sdkerrors.ErrUnauthorized.Wrap("unauthorized")
}

func matchesAny(name string, patterns []string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return wildcard(p, name) })
}

// wildcard matches name against pattern: '*' is any run of characters (none too), '?' is
// exactly one; an empty pattern matches only an empty name.
func wildcard(pattern, name string) bool {
	p, n := []rune(pattern), []rune(name)
	// star and its resume point: the classic backtracking matcher, linear in practice.
	star, resume := -1, 0
	i, j := 0, 0
	for j < len(n) {
		switch {
		case i < len(p) && (p[i] == '?' || p[i] == n[j]):
			i++
			j++
		case i < len(p) && p[i] == '*':
			star, resume = i, j
			i++
		case star >= 0:
			resume++
			i, j = star+1, resume
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}
