package feetoken

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/params"
)

// The contract runs on go-ethereum's in-memory EVM (core/vm/runtime) rather than the
// simulated chain the VipScore tests use: the sudo calls come from the chain's address 0x1,
// for which no key signs a transaction, and runtime.Call takes any caller.
var (
	chainAddr = common.HexToAddress("0x1")
	deployer  = common.HexToAddress("0xde91")
	alice     = common.HexToAddress("0xa11ce")
	bob       = common.HexToAddress("0xb0b")
	carol     = common.HexToAddress("0xca401")
)

const (
	tokenName     = "umin"
	tokenSymbol   = "umin"
	tokenDecimals = 18
)

// token is a deployed FeeToken on a fresh in-memory state.
type token struct {
	t     *testing.T
	abi   abi.ABI
	state *state.StateDB
	addr  common.Address
	txs   int // calls made, so that each gets its own log context
}

// osaka is the rollup's fork; the artifacts are built for it.
var (
	osaka      = params.MergedTestChainConfig
	osakaRules = osaka.Rules(new(big.Int), true, 0)
)

func (k *token) config(from common.Address) *runtime.Config {
	return &runtime.Config{ChainConfig: osaka, Origin: from, GasLimit: 10_000_000, State: k.state}
}

func deploy(t *testing.T) *token {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	k := &token{t: t, abi: ABI(), state: st}
	st.SetTxContext(common.Hash{0xde}, 0, 0)
	_, addr, _, err := runtime.Create(DeployInput(tokenName, tokenSymbol, tokenDecimals), k.config(deployer))
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	st.Finalise(osakaRules)
	if logs := st.GetLogs(common.Hash{0xde}, 0, common.Hash{}, 0); len(logs) != 0 {
		t.Fatalf("deploy logged %d events, want none", len(logs))
	}
	k.addr = addr
	return k
}

// result is what one call did.
type result struct {
	ret    []byte
	gas    uint64 // execution gas, without the transaction's intrinsic gas
	refund uint64
	logs   []*types.Log
	revert string // the revert reason; empty if the call succeeded
}

// call runs method(args) from the caller as its own transaction: logs, warm accounts and
// slots, refunds and the original values SSTORE prices against are its own.
func (k *token) call(from common.Address, method string, args ...any) result {
	k.t.Helper()
	input, err := k.abi.Pack(method, args...)
	if err != nil {
		k.t.Fatalf("pack %s: %v", method, err)
	}
	k.txs++
	h := common.BigToHash(big.NewInt(int64(k.txs)))
	k.state.SetTxContext(h, k.txs, 0)
	cfg := k.config(from)
	ret, left, err := runtime.Call(k.addr, input, cfg)
	r := result{ret: ret, gas: cfg.GasLimit - left, refund: k.state.GetRefund(), logs: k.state.GetLogs(h, 0, common.Hash{}, 0)}
	k.state.Finalise(osakaRules) // end the transaction, as a block does
	switch {
	case errors.Is(err, vm.ErrExecutionReverted):
		if r.revert, err = abi.UnpackRevert(ret); err != nil {
			k.t.Fatalf("%s reverted without a reason string: %x", method, ret)
		}
	case err != nil:
		k.t.Fatalf("%s: %v", method, err)
	}
	return r
}

// must runs a call that has to succeed.
func (k *token) must(from common.Address, method string, args ...any) result {
	k.t.Helper()
	r := k.call(from, method, args...)
	if r.revert != "" {
		k.t.Fatalf("%s from %s reverted: %s", method, from, r.revert)
	}
	return r
}

// read calls a view function and unpacks its single output.
func (k *token) read(method string, args ...any) any {
	k.t.Helper()
	r := k.must(alice, method, args...)
	out, err := k.abi.Unpack(method, r.ret)
	if err != nil || len(out) != 1 {
		k.t.Fatalf("unpack %s: %v %v", method, out, err)
	}
	return out[0]
}

func (k *token) number(method string, args ...any) int64 {
	k.t.Helper()
	v := k.read(method, args...).(*big.Int)
	if !v.IsInt64() {
		k.t.Fatalf("%s = %s", method, v)
	}
	return v.Int64()
}

// event is an expected Transfer(a, b, value) or Approval(a, b, value) log.
type event struct {
	name  string
	a, b  common.Address
	value int64
}

func (k *token) checkLogs(logs []*types.Log, want []event) {
	k.t.Helper()
	if len(logs) != len(want) {
		k.t.Fatalf("%d logs, want %d: %v", len(logs), len(want), want)
	}
	for i, w := range want {
		l := logs[i]
		topics := []common.Hash{k.abi.Events[w.name].ID, common.BytesToHash(w.a.Bytes()), common.BytesToHash(w.b.Bytes())}
		data := common.BigToHash(big.NewInt(w.value)).Bytes()
		if l.Address != k.addr || len(l.Topics) != 3 || !bytes.Equal(l.Data, data) ||
			l.Topics[0] != topics[0] || l.Topics[1] != topics[1] || l.Topics[2] != topics[2] {
			k.t.Fatalf("log %d: address %s topics %v data %x, want %+v", i, l.Address, l.Topics, l.Data, w)
		}
	}
}

func u(v int64) *big.Int { return big.NewInt(v) }

// step is one call: from calls method(args).
type step struct {
	from   common.Address
	method string
	args   []any
}

// TestCalls runs each case on a fresh token in which the chain has minted 1000 to alice and
// 500 to bob: the setup steps (which must succeed), then the call under test, whose revert
// reason, logs and resulting balances, supply and allowance(alice, bob) are all checked.
func TestCalls(t *testing.T) {
	const notChain = "ERC20: caller is not the chain"
	tests := []struct {
		name   string
		setup  []step
		call   step
		revert string
		logs   []event
		bal    [3]int64 // alice, bob, carol after the call
		supply int64
		allow  int64 // allowance(alice, bob) after the call
	}{
		{name: "sudoMint by the chain",
			call: step{chainAddr, "sudoMint", []any{carol, u(250)}},
			logs: []event{{"Transfer", common.Address{}, carol, 250}},
			bal:  [3]int64{1000, 500, 250}, supply: 1750},
		{name: "sudoMint to a holder adds",
			call: step{chainAddr, "sudoMint", []any{alice, u(1)}},
			logs: []event{{"Transfer", common.Address{}, alice, 1}},
			bal:  [3]int64{1001, 500, 0}, supply: 1501},
		{name: "sudoMint by a holder reverts",
			call:   step{alice, "sudoMint", []any{alice, u(250)}},
			revert: notChain,
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "sudoMint by the deployer reverts",
			call:   step{deployer, "sudoMint", []any{carol, u(1)}},
			revert: notChain,
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "sudoTransfer by the chain",
			call: step{chainAddr, "sudoTransfer", []any{alice, carol, u(300)}},
			logs: []event{{"Transfer", alice, carol, 300}},
			bal:  [3]int64{700, 500, 300}, supply: 1500},
		{name: "sudoTransfer of the whole balance",
			call: step{chainAddr, "sudoTransfer", []any{bob, alice, u(500)}},
			logs: []event{{"Transfer", bob, alice, 500}},
			bal:  [3]int64{1500, 0, 0}, supply: 1500},
		{name: "sudoTransfer beyond the balance reverts",
			call:   step{chainAddr, "sudoTransfer", []any{bob, carol, u(501)}},
			revert: "ERC20: transfer amount exceeds balance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "sudoTransfer by the sender itself reverts",
			call:   step{alice, "sudoTransfer", []any{alice, carol, u(1)}},
			revert: notChain,
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "sudoBurn by the chain",
			call: step{chainAddr, "sudoBurn", []any{alice, u(400)}},
			logs: []event{{"Transfer", alice, common.Address{}, 400}},
			bal:  [3]int64{600, 500, 0}, supply: 1100},
		{name: "sudoBurn beyond the balance reverts",
			call:   step{chainAddr, "sudoBurn", []any{bob, u(501)}},
			revert: "ERC20: burn amount exceeds balance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "sudoBurn by a holder reverts",
			call:   step{bob, "sudoBurn", []any{bob, u(1)}},
			revert: notChain,
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "transfer by a holder",
			call: step{alice, "transfer", []any{carol, u(10)}},
			logs: []event{{"Transfer", alice, carol, 10}},
			bal:  [3]int64{990, 500, 10}, supply: 1500},
		{name: "transfer beyond the balance reverts",
			call:   step{bob, "transfer", []any{carol, u(501)}},
			revert: "ERC20: transfer amount exceeds balance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500},
		{name: "approve",
			call: step{alice, "approve", []any{bob, u(70)}},
			logs: []event{{"Approval", alice, bob, 70}},
			bal:  [3]int64{1000, 500, 0}, supply: 1500, allow: 70},
		{name: "transferFrom within the allowance",
			setup: []step{{alice, "approve", []any{bob, u(70)}}},
			call:  step{bob, "transferFrom", []any{alice, carol, u(30)}},
			logs:  []event{{"Transfer", alice, carol, 30}},
			bal:   [3]int64{970, 500, 30}, supply: 1500, allow: 40},
		{name: "transferFrom of the whole allowance",
			setup: []step{{alice, "approve", []any{bob, u(70)}}, {bob, "transferFrom", []any{alice, carol, u(30)}}},
			call:  step{bob, "transferFrom", []any{alice, bob, u(40)}},
			logs:  []event{{"Transfer", alice, bob, 40}},
			bal:   [3]int64{930, 540, 30}, supply: 1500},
		{name: "transferFrom beyond the allowance reverts",
			setup:  []step{{alice, "approve", []any{bob, u(70)}}},
			call:   step{bob, "transferFrom", []any{alice, carol, u(71)}},
			revert: "ERC20: transfer amount exceeds allowance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500, allow: 70},
		{name: "transferFrom by another spender reverts",
			setup:  []step{{alice, "approve", []any{bob, u(70)}}},
			call:   step{carol, "transferFrom", []any{alice, carol, u(1)}},
			revert: "ERC20: transfer amount exceeds allowance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500, allow: 70},
		{name: "transferFrom beyond the balance reverts",
			setup:  []step{{alice, "approve", []any{bob, u(2000)}}},
			call:   step{bob, "transferFrom", []any{alice, carol, u(1001)}},
			revert: "ERC20: transfer amount exceeds balance",
			bal:    [3]int64{1000, 500, 0}, supply: 1500, allow: 2000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := deploy(t)
			k.must(chainAddr, "sudoMint", alice, u(1000))
			k.must(chainAddr, "sudoMint", bob, u(500))
			for _, s := range tt.setup {
				k.must(s.from, s.method, s.args...)
			}
			r := k.call(tt.call.from, tt.call.method, tt.call.args...)
			if r.revert != tt.revert {
				t.Fatalf("revert %q, want %q", r.revert, tt.revert)
			}
			if tt.revert == "" && tt.call.method != "sudoTransfer" && tt.call.method != "sudoMint" && tt.call.method != "sudoBurn" {
				// The ERC-20 calls return true.
				if out, err := k.abi.Unpack(tt.call.method, r.ret); err != nil || len(out) != 1 || out[0] != true {
					t.Fatalf("%s returned %v, %v; want true", tt.call.method, out, err)
				}
			}
			k.checkLogs(r.logs, tt.logs)
			for i, who := range []common.Address{alice, bob, carol} {
				if got := k.number("balanceOf", who); got != tt.bal[i] {
					t.Errorf("balanceOf(%s) = %d, want %d", who, got, tt.bal[i])
				}
			}
			if got := k.number("totalSupply"); got != tt.supply {
				t.Errorf("totalSupply = %d, want %d", got, tt.supply)
			}
			if got := k.number("allowance", alice, bob); got != tt.allow {
				t.Errorf("allowance(alice, bob) = %d, want %d", got, tt.allow)
			}
		})
	}
}

// TestDeployment: the deployed code is the runtime artifact, the constructor's metadata reads
// back, the supply starts at zero, and ERC-165 reports ERC-165 and ERC-20 only.
func TestDeployment(t *testing.T) {
	k := deploy(t)
	if !bytes.Equal(k.state.GetCode(k.addr), RuntimeBin()) {
		t.Fatal("deployed code differs from artifacts/FeeToken.bin-runtime")
	}
	if in := DeployInput(tokenName, tokenSymbol, tokenDecimals); !bytes.HasPrefix(in, Bin()) || len(in) == len(Bin()) {
		t.Fatal("DeployInput is not Bin followed by the constructor arguments")
	}
	for _, tc := range []struct {
		method string
		want   any
	}{
		{"name", tokenName},
		{"symbol", tokenSymbol},
		{"decimals", uint8(tokenDecimals)},
		{"totalSupply", u(0)},
	} {
		got := k.read(tc.method)
		if b, ok := got.(*big.Int); ok {
			got = b.String()
			tc.want = tc.want.(*big.Int).String()
		}
		if got != tc.want {
			t.Errorf("%s = %v, want %v", tc.method, got, tc.want)
		}
	}
	// Other constructor arguments read back as given, not as constants.
	other := &token{t: t, abi: k.abi, state: k.state}
	k.state.SetTxContext(common.Hash{0xdf}, 0, 0)
	_, addr, _, err := runtime.Create(DeployInput("Initia", "INIT", 6), k.config(deployer))
	if err != nil {
		t.Fatal(err)
	}
	k.state.Finalise(osakaRules)
	other.addr = addr
	if n, s, d := other.read("name"), other.read("symbol"), other.read("decimals"); n != "Initia" || s != "INIT" || d != uint8(6) {
		t.Errorf("second token: %v %v %v", n, s, d)
	}

	var erc20 [4]byte
	for _, m := range []string{"totalSupply", "balanceOf", "transfer", "allowance", "approve", "transferFrom"} {
		for i, b := range k.abi.Methods[m].ID {
			erc20[i] ^= b
		}
	}
	if erc20 != [4]byte{0x36, 0x37, 0x2b, 0x07} {
		t.Fatalf("the ERC-20 interface id from the ABI is %x, want 36372b07", erc20)
	}
	for _, tc := range []struct {
		id   [4]byte
		want bool
	}{
		{[4]byte{0x01, 0xff, 0xc9, 0xa7}, true}, // ERC-165
		{erc20, true},
		{[4]byte{0xff, 0xff, 0xff, 0xff}, false}, // ERC-165's invalid id
		{[4]byte{}, false},
		{[4]byte(k.abi.Methods["transfer"].ID), false},
	} {
		if got := k.read("supportsInterface", tc.id); got != tc.want {
			t.Errorf("supportsInterface(%x) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// TestGas logs what the chain's sudo calls cost as transactions (intrinsic and calldata gas,
// execution, refund), with the storage slots they touch already non-zero (the usual case:
// existing holders) and, for sudoMint, a first-time holder.
func TestGas(t *testing.T) {
	k := deploy(t)
	k.must(chainAddr, "sudoMint", alice, u(1000))
	k.must(chainAddr, "sudoMint", bob, u(500))
	rules := osakaRules
	if !rules.IsOsaka || rules.IsAmsterdam {
		t.Fatal("the test chain is not on Osaka")
	}
	txGas := func(r result, method string, args ...any) uint64 {
		t.Helper()
		data, _ := k.abi.Pack(method, args...)
		intrinsic, err := core.IntrinsicGas(data, nil, nil, chainAddr, &k.addr, nil, rules)
		if err != nil {
			t.Fatal(err)
		}
		floor, err := core.FloorDataGas(rules, chainAddr, &k.addr, nil, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		used := intrinsic + r.gas
		used -= min(r.refund, used/params.RefundQuotientEIP3529)
		return max(used, floor)
	}
	for _, tc := range []struct {
		name   string
		method string
		args   []any
	}{
		{"sudoTransfer between holders", "sudoTransfer", []any{alice, bob, u(7)}},
		{"sudoMint to a holder", "sudoMint", []any{alice, u(7)}},
		{"sudoMint to a new holder", "sudoMint", []any{carol, u(7)}},
		{"sudoBurn leaving a balance", "sudoBurn", []any{alice, u(7)}},
	} {
		r := k.must(chainAddr, tc.method, tc.args...)
		gas := txGas(r, tc.method, tc.args...)
		t.Logf("%-30s %6d gas (execution %d)", tc.name, gas, r.gas)
		if gas < params.TxGas || gas > 100_000 {
			t.Errorf("%s: %d gas", tc.name, gas)
		}
	}
}
