package sidebyside_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/x/authz"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	vmmove "github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// cosmosGasProbes send the same Cosmos txs to both sides, each simulated (with a fee, as the
// deployer simulates) and then signed for the simulated gas x1.3, and compare what each tx
// simulated at and what its delivery used, tx by tx, within a tolerance of the real one's
// figure: 10% (a simulation without the fee deduction allowance misses by 35% or more), and
// 1% (what is left: the README's "Differences that remain"). Wasm: a bank send, the scoring
// contract's upload, instantiate, instantiate2, an execute, a migrate, an admin change and
// an admin clear; Move: a bank send, the scoring module's publish (with its setup) and an
// update of two scores. The txs run once per rollup; every probe reads them.
var cosmosGasProbes = []probe{
	gasProbe("Cosmos gas: simulated, within 10%", 0.10, func(f gasFigure) uint64 { return f.simulated }),
	gasProbe("Cosmos gas: used, within 10%", 0.10, func(f gasFigure) uint64 { return f.used }),
	gasProbe("Cosmos gas: simulated, within 1%", 0.01, func(f gasFigure) uint64 { return f.simulated }),
	gasProbe("Cosmos gas: used, within 1%", 0.01, func(f gasFigure) uint64 { return f.used }),
}

func gasProbe(name string, tolerance float64, pick func(gasFigure) uint64) probe {
	return probe{name: name, vms: []vip.VM{vip.Wasm, vip.Move}, close: gasClose(tolerance), timeout: 2 * time.Minute,
		ask: func(ctx context.Context, r localnet.Rollup) (answer, error) {
			figs, err := cosmosGas(ctx, r)
			if err != nil {
				return answer{}, err
			}
			parts := make([]string, len(figs))
			for i, f := range figs {
				parts[i] = fmt.Sprintf("%s=%d", f.tx, pick(f))
			}
			return answer{Value: strings.Join(parts, " ")}, nil
		}}
}

// gasClose says whether two gas answers name the same txs with figures within tolerance (a
// fraction) of the second's (the real one's).
func gasClose(tolerance float64) func(a, b answer) bool {
	return func(a, b answer) bool {
		if a.Status != b.Status || a.Code != b.Code || a.Message != b.Message || a.Shape != b.Shape {
			return false
		}
		as, bs := strings.Fields(a.Value), strings.Fields(b.Value)
		if len(as) != len(bs) {
			return false
		}
		for i := range as {
			an, av, _ := strings.Cut(as[i], "=")
			bn, bv, _ := strings.Cut(bs[i], "=")
			x, errA := strconv.ParseFloat(av, 64)
			y, errB := strconv.ParseFloat(bv, 64)
			if an != bn || errA != nil || errB != nil || math.Abs(x-y) > tolerance*y {
				return false
			}
		}
		return true
	}
}

// gasFigure is one tx's simulated gas and its delivery's gas used.
type gasFigure struct {
	tx              string
	simulated, used uint64
}

// gasRuns holds each rollup's run of the gas txs (one run, whichever probe asks first).
var gasRuns sync.Map // localnet.Rollup -> *gasRun

type gasRun struct {
	once sync.Once
	figs []gasFigure
	err  error
}

func cosmosGas(ctx context.Context, r localnet.Rollup) ([]gasFigure, error) {
	v, _ := gasRuns.LoadOrStore(r, &gasRun{})
	run := v.(*gasRun)
	run.once.Do(func() { run.figs, run.err = sendGasTxs(ctx, r) })
	return run.figs, run.err
}

// gasSender signs and sends the gas txs from the rollup's first funded account.
type gasSender struct {
	c    *cosmostx.Client
	s    *cosmostx.Signer
	figs []gasFigure
}

func (g *gasSender) send(ctx context.Context, name string, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	sim, err := g.c.Simulate(ctx, g.s, msgs...)
	if err != nil {
		return nil, fmt.Errorf("%s: simulate: %w", name, err)
	}
	res, err := g.c.Send(ctx, g.s, g.c.GasLimit(sim.GasInfo.GasUsed), msgs...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.Code != 0 {
		return nil, fmt.Errorf("%s: code %d: %s", name, res.Code, res.RawLog)
	}
	g.figs = append(g.figs, gasFigure{tx: name, simulated: sim.GasInfo.GasUsed, used: uint64(res.GasUsed)})
	return res, nil
}

// fundedSigner dials the rollup's Cosmos faces and loads its first funded account.
func fundedSigner(ctx context.Context, r localnet.Rollup) (*cosmostx.Client, *cosmostx.Signer, error) {
	ep := r.Endpoints()
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(wasmtypes.RegisterInterfaces, initiamove.RegisterInterfaces, authz.RegisterInterfaces))
	if err != nil {
		return nil, nil, err
	}
	funded := r.Funded()[0]
	secret, err := hex.DecodeString(funded.PrivateKey)
	if err != nil {
		return nil, nil, err
	}
	// The funded account's key is secp256k1 on Wasm, eth_secp256k1 on Move: the one whose
	// address it is.
	var s *cosmostx.Signer
	for _, kt := range []vip.KeyType{vip.Secp256k1, vip.EthSecp256k1} {
		k, err := keys.PrivKeyFromBytes(secret, kt)
		if err != nil {
			return nil, nil, err
		}
		if c.Address(k.PubKey()) == funded.Address {
			if s, err = c.Signer(ctx, k); err != nil {
				return nil, nil, err
			}
		}
	}
	if s == nil {
		return nil, nil, fmt.Errorf("no key type gives the funded address %s", funded.Address)
	}
	return c, s, nil
}

func sendGasTxs(ctx context.Context, r localnet.Rollup) ([]gasFigure, error) {
	c, s, err := fundedSigner(ctx, r)
	if err != nil {
		return nil, err
	}
	g := &gasSender{c: c, s: s}
	other := c.Enc.MustAddr(fresh().Bytes())
	denom := c.GasPrice().Denom
	if _, err := g.send(ctx, "bank-send", &banktypes.MsgSend{FromAddress: s.Address, ToAddress: other,
		Amount: sdk.NewCoins(sdk.NewInt64Coin(denom, 1000))}); err != nil {
		return nil, err
	}
	if r.VM() == vip.Move {
		// The scoring module compiled for the funded account and published by it, with its
		// setup, then an update of two scores: a MsgPublish with two executes, and a
		// MsgExecute of update_score_script.
		var owner movebcs.Address
		copy(owner[12:], s.Key.PubKey().Address())
		code, err := vmmove.Builder(movevm.LazyCompiler(movevm.Dir()))(ctx, owner)
		if err != nil {
			return nil, err
		}
		call := func(fn string, args ...[]byte) *initiamove.MsgExecute {
			return &initiamove.MsgExecute{Sender: s.Address, ModuleAddress: owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args}
		}
		if _, err := g.send(ctx, "move-publish", &initiamove.MsgPublish{Sender: s.Address, CodeBytes: [][]byte{code}, UpgradePolicy: initiamove.COMPATIBLE},
			call("add_deployer_script", owner[:]), call("set_init_stage", movebcs.ArgU64(3))); err != nil {
			return nil, err
		}
		users := []movebcs.Address{owner, movebcs.AccountAddress(fresh().Bytes())}
		if _, err := g.send(ctx, "move-execute", call("update_score_script", movebcs.ArgU64(3), movebcs.ArgAddresses(users), movebcs.ArgU64s([]uint64{10, 32}))); err != nil {
			return nil, err
		}
		return g.figs, nil
	}

	code, err := os.ReadFile(filepath.Join("..", "..", "contracts", "wasm", "artifacts", "vip_score.wasm"))
	if err != nil {
		return nil, err
	}
	res, err := g.send(ctx, "store-code", &wasmtypes.MsgStoreCode{Sender: s.Address, WASMByteCode: code})
	if err != nil {
		return nil, err
	}
	ids := cosmostx.Attr(res, wasmtypes.EventTypeStoreCode, wasmtypes.AttributeKeyCodeID)
	if len(ids) != 1 {
		return nil, fmt.Errorf("store-code: code ids %v", ids)
	}
	codeID, err := strconv.ParseUint(ids[0], 10, 64)
	if err != nil {
		return nil, err
	}
	init := func(stage int) []byte {
		return must(json.Marshal(map[string]any{"allow_list": []string{s.Address}, "init_stage": stage}))
	}
	res, err = g.send(ctx, "instantiate", &wasmtypes.MsgInstantiateContract{Sender: s.Address, Admin: s.Address,
		CodeID: codeID, Label: "vip_score", Msg: init(3)})
	if err != nil {
		return nil, err
	}
	addrs := cosmostx.Attr(res, wasmtypes.EventTypeInstantiate, wasmtypes.AttributeKeyContractAddr)
	if len(addrs) != 1 {
		return nil, fmt.Errorf("instantiate: contracts %v", addrs)
	}
	contract := addrs[0]
	res, err = g.send(ctx, "instantiate2", &wasmtypes.MsgInstantiateContract2{Sender: s.Address, Admin: s.Address,
		CodeID: codeID, Label: "vip_score 2", Msg: init(4), Salt: []byte("vipharness-gas")})
	if err != nil {
		return nil, err
	}
	addrs = cosmostx.Attr(res, wasmtypes.EventTypeInstantiate, wasmtypes.AttributeKeyContractAddr)
	if len(addrs) != 1 {
		return nil, fmt.Errorf("instantiate2: contracts %v", addrs)
	}
	contract2 := addrs[0]
	update := must(json.Marshal(map[string]any{"update_scores": map[string]any{"stage": 3, "scores": [][]any{{s.Address, 10}, {other, 32}}}}))
	if _, err := g.send(ctx, "execute", &wasmtypes.MsgExecuteContract{Sender: s.Address, Contract: contract, Msg: update}); err != nil {
		return nil, err
	}
	if _, err := g.send(ctx, "migrate", &wasmtypes.MsgMigrateContract{Sender: s.Address, Contract: contract, CodeID: codeID, Msg: []byte("{}")}); err != nil {
		return nil, err
	}
	if _, err := g.send(ctx, "update-admin", &wasmtypes.MsgUpdateAdmin{Sender: s.Address, NewAdmin: other, Contract: contract}); err != nil {
		return nil, err
	}
	// The clear goes to a contract the sender still administers: the second.
	if _, err := g.send(ctx, "clear-admin", &wasmtypes.MsgClearAdmin{Sender: s.Address, Contract: contract2}); err != nil {
		return nil, err
	}
	return g.figs, nil
}

// overU64Send sends the funded account's own coins to a fresh account, an amount one above
// u64's largest, signed for 200,000 gas: the bank's answer at delivery (Move coin amounts
// are u64).
func overU64Send(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, s, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	amount, _ := sdkmath.NewIntFromString("18446744073709551616")
	res, err := c.Send(ctx, s, 200_000, &banktypes.MsgSend{FromAddress: s.Address, ToAddress: c.Enc.MustAddr(fresh().Bytes()),
		Amount: sdk.NewCoins(sdk.NewCoin(c.GasPrice().Denom, amount))})
	if err != nil {
		return answer{}, err
	}
	// The reason: the raw log's first line after its last ": " (before it come the message's
	// index and the balances; after the first line, a recovered panic's stack).
	line, _, _ := strings.Cut(res.RawLog, "\n")
	reason := line[strings.LastIndex(line, ": ")+len(": "):]
	return answer{Code: int(res.Code), Message: res.Codespace + " " + reason, Value: fmt.Sprintf("in a block: %v", res.Height > 0)}, nil
}

// overBalanceSend sends the largest u64 amount of the fee denom, far above the funded
// account's balance: the refusal's code, codespace and raw log (figures and addresses
// masked).
func overBalanceSend(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, s, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	amount := sdkmath.NewIntFromUint64(math.MaxUint64)
	res, err := c.Send(ctx, s, 300_000, &banktypes.MsgSend{FromAddress: s.Address, ToAddress: c.Enc.MustAddr(fresh().Bytes()),
		Amount: sdk.NewCoins(sdk.NewCoin(c.GasPrice().Denom, amount))})
	if err != nil {
		return answer{}, err
	}
	line, _, _ := strings.Cut(res.RawLog, "\n")
	return answer{Code: int(res.Code), Message: res.Codespace + " " + masked(line), Value: fmt.Sprintf("in a block: %v", res.Height > 0)}, nil
}

var (
	bech32Addr = regexp.MustCompile(`\b[a-z]+1[02-9ac-hj-np-z]{38,}\b`)
	figures    = regexp.MustCompile(`[0-9]+`)
)

// masked is a message with its addresses and figures replaced, which differ by chain, and
// without the Rust backtrace a MoveVM appends to some errors when its process's environment
// asks for backtraces (RUST_BACKTRACE): the node's settings, not the chain's answer.
func masked(msg string) string {
	msg, _, _ = strings.Cut(msg, " with message Backtrace:")
	msg = rawFeePayer.ReplaceAllString(msg, "fee payer address: ADDR does not exist")
	return figures.ReplaceAllString(bech32Addr.ReplaceAllString(msg, "ADDR"), "N")
}

// rawFeePayer is minievm's refusal of a sender with no account, which prints the address's
// raw bytes.
var rawFeePayer = regexp.MustCompile(`(?s)fee payer address: .* does not exist`)
