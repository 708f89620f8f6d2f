// Package xevm is minievm's x/evm as a Cosmos SDK module of the local minitia: minievm's
// messages (minievm.evm.v1.Msg Create and Call) and queries (Call, Code, State), run by
// go-ethereum's EVM interpreter inside Cosmos txs, against state kept as minievm keeps it: an
// account's nonce is its x/auth sequence, its balance the fee denom's, an ERC-20's storage (see
// feetoken.go), its code and storage the module's store. The EVM meters its own gas; the SDK meter is charged what it
// used, as on minievm, so a tx's gas is Cosmos gas (ante, signature, fee) plus EVM gas.
package xevm

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"cosmossdk.io/core/address"
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	storetypes "cosmossdk.io/store/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/vipharness/vipharness/bindings/initiaevm"
	"github.com/vipharness/vipharness/deployer/registration/probe"
)

// ModuleName is x/evm's module, store and codespace name.
const ModuleName = "evm"

// SimulationGasLimit is the EVM gas a simulated tx may use: minievm's default
// contract-simulation-gas-limit.
const SimulationGasLimit = 3_000_000

// x/evm's errors, with minievm's codes and words.
var (
	ErrInvalidAddressLength = errorsmod.Register(ModuleName, 2, "Invalid address length: address must be 20 bytes to use EVM")
	ErrEVMCallFailed        = errorsmod.Register(ModuleName, 3, "EVMCall failed")
	ErrEVMCreateFailed      = errorsmod.Register(ModuleName, 4, "EVMCreate failed")
	ErrInvalidHexString     = errorsmod.Register(ModuleName, 6, "Invalid hex string")
	ErrInvalidRequest       = errorsmod.Register(ModuleName, 9, "Invalid request")
	ErrReverted             = errorsmod.Register(ModuleName, 23, "Reverted")
	ErrInvalidValue         = errorsmod.Register(ModuleName, 24, "Invalid value")
)

// Accounts is what the module needs of x/auth.
type Accounts interface {
	GetAccount(ctx context.Context, addr sdk.AccAddress) sdk.AccountI
	NewAccountWithAddress(ctx context.Context, addr sdk.AccAddress) sdk.AccountI
	SetAccount(ctx context.Context, acc sdk.AccountI)
	RemoveAccount(ctx context.Context, acc sdk.AccountI)
}

// Keeper runs the EVM against the module's store.
type Keeper struct {
	key         *storetypes.KVStoreKey
	accounts    Accounts
	addresses   address.Codec
	denom       string
	minGasPrice MinGasPrice
}

// NewKeeper is x/evm over the app's store and accounts; denom is the fee denom, the EVM's
// native coin, an ERC-20 the module deploys at genesis (InitFeeToken), and minGasPrice reads
// its minimum gas price (the EVM's base fee).
func NewKeeper(key *storetypes.KVStoreKey, accounts Accounts, addresses address.Codec, denom string, minGasPrice MinGasPrice) *Keeper {
	return &Keeper{key: key, accounts: accounts, addresses: addresses, denom: denom, minGasPrice: minGasPrice}
}

// The module's store: under minievm's VM prefix, per address its storage slots, its code and
// the code's hash.
var vmPrefix = []byte{0x21}

func addrKey(addr common.Address, kind string, rest ...byte) []byte {
	key := append(append(append([]byte{}, vmPrefix...), addr.Bytes()...), kind...)
	return append(key, rest...)
}

func codeKey(addr common.Address) []byte        { return addrKey(addr, "code") }
func codeHashKey(addr common.Address) []byte    { return addrKey(addr, "codehash") }
func stateKeyPrefix(addr common.Address) []byte { return addrKey(addr, "state") }
func stateKey(addr common.Address, slot common.Hash) []byte {
	return addrKey(addr, "state", slot.Bytes()...)
}

// ChainConfig is minievm's: every fork up to Prague from genesis and Verkle's too (minievm
// sets VerkleTime 0, go-ethereum's UBT fork now), so gas is EIP-4762's witness pricing, not
// EIP-2929's (a new storage slot ~6,000-9,000 gas where Prague asks 22,100; code deposit by
// 31-byte chunks, not 200 a byte); the EVM chain id derived from the Cosmos one.
func ChainConfig(cosmosChainID string) *params.ChainConfig {
	zero := uint64(0)
	b := big.NewInt(0)
	return &params.ChainConfig{
		ChainID:        new(big.Int).SetUint64(probe.DeriveEVMChainID(cosmosChainID)),
		HomesteadBlock: b, DAOForkBlock: b, DAOForkSupport: true, EIP150Block: b, EIP155Block: b, EIP158Block: b,
		ByzantiumBlock: b, ConstantinopleBlock: b, PetersburgBlock: b, IstanbulBlock: b, MuirGlacierBlock: b,
		BerlinBlock: b, LondonBlock: b, ArrowGlacierBlock: b, GrayGlacierBlock: b, MergeNetsplitBlock: b,
		ShanghaiTime: &zero, CancunTime: &zero, PragueTime: &zero, UBTTime: &zero,
		TerminalTotalDifficulty: b,
		BlobScheduleConfig:      &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig, Prague: params.DefaultPragueBlobConfig},
	}
}

// verkleCancunEIPs give the Verkle instruction set Cancun's opcodes, as minievm's EVM (Initia's
// go-ethereum fork) builds it on Cancun's where go-ethereum builds it on Shanghai's:
// transient storage (TLOAD, TSTORE) and MCOPY, which solc emits for Cancun and later.
// BLOBHASH and BLOBBASEFEE cannot be added this way; they stay invalid here (no blobs on a
// rollup).
var verkleCancunEIPs = []int{1153, 5656}

// run is one EVM execution of a message or query: its EVM, state and gas.
type run struct {
	evm   *vm.EVM
	state *stateDB
	rules params.Rules
	gas   uint64 // what the EVM may use
}

func (k *Keeper) newRun(ctx sdk.Context, caller common.Address, token common.Address, hasToken bool, baseFee *big.Int) *run {
	cfg := ChainConfig(ctx.ChainID())
	hash := ctx.HeaderHash()
	if len(hash) == 0 {
		hash = make([]byte, 32)
	}
	random := common.BytesToHash(hash)
	st := newStateDB(k, ctx)
	block := vm.BlockContext{
		CanTransfer: canTransfer,
		Transfer:    transfer,
		GetHash:     func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: big.NewInt(ctx.BlockHeight()),
		Time:        uint64(ctx.BlockTime().Unix()),
		Random:      &random,
		BaseFee:     baseFee,
		BlobBaseFee: big.NewInt(0),
		Difficulty:  big.NewInt(0),
		GasLimit:    blockGasLimit(ctx),
	}
	evm := vm.NewEVM(block, st, cfg, vm.Config{ExtraEips: verkleCancunEIPs})
	st.evm = evm
	st.feeToken, st.hasFeeToken = token, hasToken
	price, _ := uint256.FromBig(k.txGasPrice(ctx))
	if price == nil {
		price = uint256.NewInt(0)
	}
	evm.SetTxContext(vm.TxContext{Origin: caller, GasPrice: price})
	gas := ctx.GasMeter().Limit() - ctx.GasMeter().GasConsumedToLimit()
	if ctx.ExecMode() == sdk.ExecModeSimulate || ctx.GasMeter().Limit() == math.MaxUint64 {
		gas = SimulationGasLimit
	}
	return &run{evm: evm, state: st, rules: cfg.Rules(block.BlockNumber, true, block.Time), gas: gas}
}

func blockGasLimit(ctx sdk.Context) uint64 {
	if m := ctx.BlockGasMeter(); m != nil && m.Limit() != math.MaxUint64 {
		return m.Limit()
	}
	if cp := ctx.ConsensusParams(); cp.Block != nil && cp.Block.MaxGas > 0 {
		return uint64(cp.Block.MaxGas)
	}
	return math.MaxUint64
}

// outcome is what an execution gives back.
type outcome struct {
	ret      []byte
	contract common.Address
	logs     []*types.Log
	gasUsed  uint64
}

// execute runs a create (to nil) or a call with the intrinsic gas charged first, as a tx's
// execution is, then charges the SDK meter the gas used (after refunds) and keeps the state
// unless the EVM failed. A panic of the state (a bank refusal) is the execution's failure.
func (k *Keeper) execute(ctx sdk.Context, caller common.Address, to *common.Address, input []byte, value *uint256.Int,
	list types.AccessList, keep bool) (out outcome, err error) {
	token, hasToken, baseFee, err := k.prepare(ctx)
	if err != nil {
		return out, err
	}
	r := k.newRun(ctx, caller, token, hasToken, baseFee)
	intrinsic, err := core.IntrinsicGas(input, list, nil, caller, to, value, r.rules)
	if err != nil {
		return out, errorsmod.Wrap(ErrInvalidRequest, err.Error())
	}
	if r.gas < intrinsic {
		return out, fmt.Errorf("%w: have %d, want %d", core.ErrIntrinsicGas, r.gas, intrinsic)
	}
	var precompiles []common.Address
	for addr := range vm.ActivePrecompiledContracts(r.rules) {
		precompiles = append(precompiles, addr)
	}
	r.state.Prepare(r.rules, caller, common.Address{}, to, precompiles, list)
	if r.rules.IsEIP4762 {
		// As minievm: the sender's (and a call's target's) witness is warm, covered by the
		// intrinsic gas.
		r.evm.AccessEvents.AddTxOrigin(caller)
		if to != nil {
			r.evm.AccessEvents.AddTxDestination(*to, value != nil && !value.IsZero(), false)
		}
	}
	budget := vm.NewGasBudget(r.gas-intrinsic, 0)
	var left vm.GasBudget
	var execErr error
	func() {
		defer func() {
			if p := recover(); p != nil {
				execErr = fmt.Errorf("%v", p)
			}
		}()
		if to == nil {
			out.ret, out.contract, left, execErr = r.evm.Create(caller, input, budget, value)
		} else {
			out.ret, left, execErr = r.evm.Call(caller, *to, input, budget, value)
		}
	}()
	remaining := left.ExecutionGas + left.StateGas
	used := r.gas - remaining // the intrinsic gas with the execution's
	out.gasUsed = used - min(used/params.RefundQuotientEIP3529, r.state.GetRefund())
	// As minievm: on an unbounded meter (a simulation) a run that used every unit is not
	// charged, so the meter does not overflow.
	if ctx.GasMeter().Limit() != math.MaxUint64 || remaining > 0 {
		ctx.GasMeter().ConsumeGas(out.gasUsed, "EVM gas consumption")
	}
	if execErr != nil {
		if errors.Is(execErr, vm.ErrExecutionReverted) {
			return out, &RevertError{Data: common.CopyBytes(out.ret)}
		}
		if to == nil {
			return out, errorsmod.Wrap(ErrEVMCreateFailed, execErr.Error())
		}
		return out, errorsmod.Wrap(ErrEVMCallFailed, execErr.Error())
	}
	out.logs = r.state.logs
	if keep {
		r.state.commit()
	}
	return out, nil
}

// RevertError is a reverted execution, with the data it reverted with.
type RevertError struct{ Data []byte }

// Error is minievm's: "Reverted", with the reason first when the data is an Error(string).
func (e *RevertError) Error() string {
	if reason, err := abi.UnpackRevert(e.Data); err == nil {
		return errorsmod.Wrapf(ErrReverted, "revert: %v", reason).Error()
	}
	return ErrReverted.Error()
}

// Unwrap makes a revert ErrReverted to the SDK (code 23), as on minievm.
func (e *RevertError) Unwrap() error { return ErrReverted }

// ParseAddress reads an EVM address given in hex (0x, 20 bytes) or bech32, as minievm does.
func (k *Keeper) ParseAddress(s string) (common.Address, error) { return parseAddress(k.addresses, s) }

func parseAddress(addresses address.Codec, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		b, err := hexutil.Decode(s)
		if err != nil {
			return common.Address{}, errorsmod.Wrap(ErrInvalidHexString, err.Error())
		}
		if len(b) != common.AddressLength {
			return common.Address{}, ErrInvalidAddressLength
		}
		return common.BytesToAddress(b), nil
	}
	b, err := addresses.StringToBytes(s)
	if err != nil {
		return common.Address{}, err
	}
	if len(b) != common.AddressLength {
		return common.Address{}, ErrInvalidAddressLength
	}
	return common.BytesToAddress(b), nil
}

func decodeHex(field, s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil {
		return nil, errorsmod.Wrapf(ErrInvalidHexString, "%s: %v", field, err)
	}
	return b, nil
}

func toValue(v sdkmath.Int) (*uint256.Int, error) {
	if v.IsNil() {
		return uint256.NewInt(0), nil
	}
	if v.IsNegative() {
		return nil, errorsmod.Wrap(ErrInvalidValue, "value is negative")
	}
	u, overflow := uint256.FromBig(v.BigInt())
	if overflow {
		return nil, errorsmod.Wrap(ErrInvalidValue, "value above 2^256")
	}
	return u, nil
}

func (k *Keeper) accessList(tuples []initiaevm.AccessTuple) (types.AccessList, error) {
	list := make(types.AccessList, 0, len(tuples))
	for _, t := range tuples {
		addr, err := k.ParseAddress(t.Address)
		if err != nil {
			return nil, err
		}
		entry := types.AccessTuple{Address: addr}
		for _, key := range t.StorageKeys {
			b, err := decodeHex("storage key", key)
			if err != nil {
				return nil, err
			}
			entry.StorageKeys = append(entry.StorageKeys, common.BytesToHash(b))
		}
		list = append(list, entry)
	}
	return list, nil
}

// wireLogs are logs as minievm's messages carry them.
func wireLogs(logs []*types.Log) []initiaevm.Log {
	out := make([]initiaevm.Log, len(logs))
	for i, l := range logs {
		topics := make([]string, len(l.Topics))
		for j, t := range l.Topics {
			topics[j] = t.Hex()
		}
		out[i] = initiaevm.Log{Address: l.Address.Hex(), Topics: topics, Data: hexutil.Encode(l.Data)}
	}
	return out
}
