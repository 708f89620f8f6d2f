package nodetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"golang.org/x/crypto/sha3"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// The stage's life on the chain: deploy, an update of 100 addresses with its events, every
// score read back, a writer off the allow list refused in a block, finalize.
func scoringLifecycle(t *testing.T, e *env) {
	e.vm.deploy(t, e, 3)
	if si := e.vm.stage(t, e, 3); si != (stageInfo{Stage: 3}) {
		t.Fatalf("stage 3 after deploy: %+v", si)
	}

	us := users(100)
	pairs := make([]pair, len(us))
	want := map[string]uint64{}
	var total uint64
	for i, u := range us {
		pairs[i] = pair{e.vm.addr(u), uint64(i*10 + 1)}
		want[pairs[i].addr] = pairs[i].score
		total += pairs[i].score
	}
	res := e.mustSend(t, e.deployer, e.vm.update(e.deployer.Address, 3, pairs))
	if got := e.vm.executed(res); !slices.Equal(got, []string{e.vm.handle()}) {
		t.Fatalf("execute events name %v, want %s", got, e.vm.handle())
	}
	if got := cosmostx.Attr(res, "message", "action"); !slices.Equal(got, []string{e.vm.executeAction()}) {
		t.Fatalf("message action %v", got)
	}
	updated := e.vm.updated(res)
	slices.Sort(updated)
	if wantAddrs := slices.Sorted(maps.Keys(want)); !slices.Equal(updated, wantAddrs) {
		t.Fatalf("update events name %d addresses, want the %d updated: %v", len(updated), len(wantAddrs), updated)
	}
	t.Logf("update of 100: gas used %d of %d, %d bytes", res.GasUsed, res.GasWanted, len(res.Tx.Value))

	if si := e.vm.stage(t, e, 3); si != (stageInfo{Stage: 3, TotalScore: total}) {
		t.Fatalf("stage 3 after update: %+v, want total %d", si, total)
	}
	if got := e.vm.scores(t, e, 3); !maps.Equal(got, want) {
		t.Fatalf("%d scores read back, want the %d written: %v", len(got), len(want), got)
	}
	if v, ok := e.vm.score(t, e, pairs[42].addr, 3); !ok || v != pairs[42].score {
		t.Fatalf("score of %s: %d (%v), want %d", pairs[42].addr, v, ok, pairs[42].score)
	}

	// A writer off the allow list is refused by the contract, in a block, with the chain's
	// words and no source frame (a node runs with debug off).
	res = e.sendFixed(t, e.outsider, 500_000, e.vm.finalize(e.outsider.Address, 3))
	if res.Code == 0 || res.Height == 0 {
		t.Fatalf("unauthorized finalize: code %d height %d", res.Code, res.Height)
	}
	e.vm.wantNotAllowed(t, res)
	if strings.Contains(res.RawLog, ".go:") {
		t.Fatalf("raw_log carries a source path: %s", res.RawLog)
	}
	if si := e.vm.stage(t, e, 3); si.Finalized {
		t.Fatalf("a refused finalize finalized stage 3: %+v", si)
	}

	res = e.mustSend(t, e.deployer, e.vm.finalize(e.deployer.Address, 3))
	if got := e.vm.finalized(res); !slices.Equal(got, []string{"3"}) {
		t.Fatalf("finalize events name stages %v, want [3]: %v", got, res.Events)
	}
	if si := e.vm.stage(t, e, 3); si != (stageInfo{Stage: 3, TotalScore: total, Finalized: true}) {
		t.Fatalf("stage 3 after finalize: %+v", si)
	}
	if si := e.vm.stage(t, e, 4); si != (stageInfo{Stage: 4}) {
		t.Fatalf("stage 4 after finalize: %+v", si)
	}
}

// Txs the chain refuses before a block (a wrong sequence, a signature for another chain, too
// little fee) never run; one that runs out of gas runs in a block and writes nothing.
func refusesBadTxs(t *testing.T, e *env) {
	ctx := context.Background()
	e.vm.deploy(t, e, 1)
	msg := e.vm.update(e.deployer.Address, 1, []pair{{e.vm.addr(users(1)[0]), 7}})

	// Wrong sequence: refused at CheckTx with code 32, nothing enters a block.
	bad := *e.deployer
	bad.Sequence += 5
	tx, err := e.c.SignTx(ctx, &bad, 400_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	br, err := e.c.Broadcast(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := fmt.Sprintf("account sequence mismatch, expected %d, got %d: incorrect account sequence", e.deployer.Sequence, bad.Sequence)
	if br.Code != 32 || br.Codespace != "sdk" || br.Log != wantLog {
		t.Fatalf("bad sequence: code %d codespace %q log %q", br.Code, br.Codespace, br.Log)
	}
	if _, err := e.c.GetTx(ctx, br.Hash); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("refused tx is indexed: %v", err)
	}

	// Signed for another chain: the signature does not verify (code 4).
	other := *e.c
	other.ChainID = "another-chain-1"
	if tx, err = other.SignTx(ctx, e.deployer, 400_000, msg); err != nil {
		t.Fatal(err)
	}
	rr, err := e.c.BroadcastREST(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Code != 4 || !strings.HasPrefix(rr.RawLog, "signature verification failed; please verify account number") || !strings.HasSuffix(rr.RawLog, ": unauthorized") {
		t.Fatalf("bad signature: code %d log %q", rr.Code, rr.RawLog)
	}

	// Too little fee for the gas asked: code 13.
	low := e.c.WithGasPrice(sdk.NewDecCoinFromDec(denom, sdkmath.LegacyMustNewDecFromStr("0.01")))
	res, err := low.Send(ctx, e.deployer, 400_000, msg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 13 || !strings.Contains(res.RawLog, "insufficient fees; got: 4000umin required: 60000umin") {
		t.Fatalf("low fee: code %d log %q", res.Code, res.RawLog)
	}
	// Blocks come on an interval: two blocks later, none of the refused txs has run (the
	// sender's sequence is where it was).
	e.waitBlocks(t, 2)
	if _, seq, err := e.c.Account(ctx, e.deployer.Address); err != nil || seq != e.deployer.Sequence {
		t.Fatalf("refused txs ran: sequence %d, want %d (%v)", seq, e.deployer.Sequence, err)
	}

	// Out of gas in the contract (past the ante handler): code 11, in a block, nothing written.
	gas, where := e.vm.outOfGas()
	if res, err = e.c.Send(ctx, e.deployer, gas, msg); err != nil {
		t.Fatal(err)
	}
	if res.Code != 11 || res.Codespace != "sdk" || res.Height == 0 || !strings.Contains(res.RawLog, "out of gas in location: "+where+";") {
		t.Fatalf("out of gas: codespace %s code %d height %d log %q", res.Codespace, res.Code, res.Height, res.RawLog)
	}
	if si := e.vm.stage(t, e, 1); si.TotalScore != 0 {
		t.Fatalf("out-of-gas tx wrote a score: %+v", si)
	}
}

// A tx whose message fails after the contract wrote part of it leaves no trace of it in
// the state, yet pays its fee and uses its sequence, as on a real chain.
func failedTxWritesNothing(t *testing.T, e *env) {
	e.vm.deploy(t, e, 1)
	us := users(3)
	first := pair{e.vm.addr(us[0]), 5}
	e.mustSend(t, e.deployer, e.vm.update(e.deployer.Address, 1, []pair{first}))
	before := e.balance(t, e.deployer.Address)
	seq := e.deployer.Sequence

	second := e.vm.addr(us[1])
	res := e.sendFixed(t, e.deployer, 500_000, e.vm.failingUpdate(e.deployer.Address, 1, pair{second, 9}))
	if res.Code == 0 {
		t.Fatal("the failing update succeeded")
	}
	e.vm.wantFailedUpdate(t, res)
	if n := executedEvents(res); n != 0 {
		t.Fatalf("a failed message left %d execute events: %v", n, res.Events)
	}
	if v, ok := e.vm.score(t, e, second, 1); ok {
		t.Fatalf("failed tx left a score for %s: %d", second, v)
	}
	if got := e.vm.scores(t, e, 1); len(got) != 1 || got[first.addr] != first.score {
		t.Fatalf("scores after the failed tx: %v, want only %s: %d", got, first.addr, first.score)
	}
	if si := e.vm.stage(t, e, 1); si.TotalScore != 5 {
		t.Fatalf("failed tx changed the total: %+v", si)
	}
	fee := e.c.Fee(uint64(res.GasWanted))
	if after := e.balance(t, e.deployer.Address); !after.Equal(before.Sub(fee...)) {
		t.Fatalf("balance %s -> %s, want fee %s taken", before, after, fee)
	}
	if e.deployer.Sequence != seq+1 {
		t.Fatalf("sequence %d -> %d", seq, e.deployer.Sequence)
	}
	if i, ok := e.vm.(instantiator); ok {
		i.failedInstantiateUsesNoInstance(t, e)
	}
}

// The REST answers clients read (accounts, the prefix, a missing account, node info,
// balances) in the SDK's shapes, and the VM's own routes in Initia's.
func restShapes(t *testing.T, e *env) {
	txs := e.vm.deploy(t, e, 2)

	var acc map[string]any
	mustJSON(t, e.get(t, "/cosmos/auth/v1beta1/accounts/"+e.deployer.Address), &acc)
	a, _ := acc["account"].(map[string]any)
	if a["@type"] != "/cosmos.auth.v1beta1.BaseAccount" || a["address"] != e.deployer.Address || a["sequence"] != strconv.Itoa(txs) || a["account_number"] != "0" {
		t.Fatalf("account after %d txs: %v", txs, acc)
	}
	if pk, _ := a["pub_key"].(map[string]any); pk["@type"] != pubKeyType[e.keyType] {
		t.Fatalf("account pub_key %v, want %s", pk, pubKeyType[e.keyType])
	}
	var pre map[string]any
	mustJSON(t, e.get(t, "/cosmos/auth/v1beta1/bech32"), &pre)
	if pre["bech32_prefix"] != prefix {
		t.Fatalf("bech32: %v", pre)
	}
	nobody := bech32Of(bytes.Repeat([]byte{0x42}, 20))
	status, body := e.getStatus(t, "/cosmos/auth/v1beta1/accounts/"+nobody)
	if status != http.StatusNotFound || !strings.Contains(string(body), `"code":5`) || !strings.Contains(string(body), "not found") {
		t.Fatalf("missing account: %d %s", status, body)
	}
	var ni map[string]any
	mustJSON(t, e.get(t, "/cosmos/base/tendermint/v1beta1/node_info"), &ni)
	if dn, _ := ni["default_node_info"].(map[string]any); dn["network"] != e.n.ChainID {
		t.Fatalf("node_info %v", ni)
	}
	var bal map[string]any
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/balances/"+e.deployer.Address), &bal)
	if b, _ := bal["balances"].([]any); len(b) != 1 || b[0].(map[string]any)["denom"] != denom {
		t.Fatalf("balances %v", bal)
	}
	e.vm.restShapes(t, e, 2)
}

// pubKeyType is the account's pub_key @type of each key kind.
var pubKeyType = map[vip.KeyType]string{
	vip.Secp256k1:    "/cosmos.crypto.secp256k1.PubKey",
	vip.EthSecp256k1: "/initia.crypto.v1beta1.ethsecp256k1.PubKey",
}

// A mnemonic's account of the VM's key kind is the funded one; its account of the other
// coin type (60, eth_secp256k1, what Initia.js MnemonicKey() derives by default, beside
// 118, secp256k1, what CosmJS and wasmd's tools derive) is funded too and signs txs.
// A simulation's gas covers the tx's delivery, fee and all, as a minitia's does: its tx
// service adds the VM's fee deduction gas (miniwasm 50,000, minimove 180,000) to every
// simulation, so a send signed for exactly the simulated gas goes through, and what it
// leaves unused is that allowance, give or take what only a simulation or only a delivery
// pays (a simulated signature's size, wasmd's tx counter).
func simulationCoversDelivery(t *testing.T, e *env) {
	allowance := minitia.FeeDeductionGas(e.n.VM)
	msg := &banktypes.MsgSend{FromAddress: e.deployer.Address, ToAddress: e.outsider.Address, Amount: sdk.NewCoins(sdk.NewInt64Coin(denom, 7))}
	sim, err := e.c.Simulate(context.Background(), e.deployer, msg)
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	res := e.sendFixed(t, e.deployer, sim.GasInfo.GasUsed, msg)
	if res.Code != 0 {
		t.Fatalf("a send signed for its simulated gas %d: code %d: %s", sim.GasInfo.GasUsed, res.Code, res.RawLog)
	}
	left := sim.GasInfo.GasUsed - uint64(res.GasUsed)
	t.Logf("bank send: simulated %d, used %d, left %d (allowance %d)", sim.GasInfo.GasUsed, res.GasUsed, left, allowance)
	if allowance == 0 || left > allowance*11/10 || left < allowance*9/10 {
		t.Fatalf("a send simulated at %d used %d: %d left, want the fee deduction allowance %d within 10%%", sim.GasInfo.GasUsed, res.GasUsed, left, allowance)
	}
}

// A send of more than u64 holds is refused in a block as the VM's minitia refuses it: on
// Move, whose bank keeps u64 amounts (minimove's Move coins), by the recovered panic of the
// amount's conversion (code 111222), before any balance is read; on Wasm by x/bank's
// insufficient funds (code 5), as on miniwasm.
func refusesSendAboveU64(t *testing.T, e *env) {
	amount, _ := sdkmath.NewIntFromString("18446744073709551616")
	refusesSend(t, e, "above u64", amount, map[vip.VM]refusal{
		vip.Move: {111222, "undefined", "recovered: Uint64() out of bounds"},
		vip.Wasm: {5, "sdk", "insufficient funds"},
	})
}

// A send of more than the sender holds (within u64) is refused in a block as the VM's
// minitia refuses it: on Move by 0x1::fungible_asset's abort, an error of no codespace
// (minimove's balances are Move fungible assets); on Wasm by x/bank's insufficient funds.
func refusesSendAboveBalance(t *testing.T, e *env) {
	amount := sdkmath.NewIntFromUint64(math.MaxUint64)
	refusesSend(t, e, "above the balance", amount, map[vip.VM]refusal{
		vip.Move: {1, "undefined", "VM aborted: location=0000000000000000000000000000000000000000000000000000000000000001::fungible_asset, code=65540"},
		vip.Wasm: {5, "sdk", "is smaller than 18446744073709551615" + denom + ": insufficient funds"},
	})
}

// refusal is how a tx is refused: its code, codespace and the end of its raw log's first line.
type refusal struct {
	code      uint32
	codespace string
	log       string
}

// refusesSend sends amount from the deployer and expects the VM's refusal, in a block, with
// no coins moved.
func refusesSend(t *testing.T, e *env, what string, amount sdkmath.Int, want map[vip.VM]refusal) {
	res := e.sendFixed(t, e.deployer, 200_000, &banktypes.MsgSend{FromAddress: e.deployer.Address, ToAddress: e.outsider.Address,
		Amount: sdk.NewCoins(sdk.NewCoin(denom, amount))})
	first, _, _ := strings.Cut(res.RawLog, "\n")
	w := want[e.n.VM]
	if res.Height == 0 || res.Code != w.code || res.Codespace != w.codespace || !strings.HasSuffix(first, w.log) {
		t.Fatalf("a send %s: height %d codespace %s code %d: %s; want in a block, %s code %d, %q", what, res.Height, res.Codespace, res.Code, first, w.codespace, w.code, w.log)
	}
	if got := e.balance(t, e.outsider.Address); got.AmountOf(denom).GTE(amount) {
		t.Fatalf("the refused send moved coins: %s", got)
	}
}

func fundsBothCoinTypes(t *testing.T, e *env) {
	ctx := context.Background()
	dev := e.r.Funded()[0]
	own, err := minitia.DeriveAccount(dev.Mnemonic, e.keyType, prefix)
	if err != nil || own.Address != dev.Address || own.PrivateKey != dev.PrivateKey || own.Address != e.deployer.Address {
		t.Fatalf("mnemonic derives %s (%v), want %s", own.Address, err, dev.Address)
	}
	otherType, reported := vip.EthSecp256k1, dev.CoinType60Address
	if e.keyType == vip.EthSecp256k1 {
		otherType, reported = vip.Secp256k1, dev.CoinType118Address
	}
	other, err := minitia.DeriveAccount(dev.Mnemonic, otherType, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if other.Address == dev.Address || reported != other.Address {
		t.Fatalf("the %s account %q, the mnemonic derives %s (%s: %s)", otherType, reported, other.Address, e.keyType, dev.Address)
	}
	genesis := sdk.NewCoins(sdk.NewCoin(denom, minitia.DefaultGenesisBalance))
	for _, addr := range []string{dev.Address, other.Address} {
		if got := e.balance(t, addr); !got.Equal(genesis) {
			t.Fatalf("%s holds %s, want %s", addr, got, genesis)
		}
	}

	s, err := e.c.Signer(ctx, other.Key)
	if err != nil {
		t.Fatalf("load the %s signer: %v", otherType, err)
	}
	if s.Address != other.Address {
		t.Fatalf("signer address %s, want %s", s.Address, other.Address)
	}
	amount := sdk.NewCoins(sdk.NewInt64Coin(denom, 1_000))
	res := e.mustSend(t, s, &banktypes.MsgSend{FromAddress: other.Address, ToAddress: e.outsider.Address, Amount: amount})
	fee := e.c.Fee(uint64(res.GasWanted))
	if got, want := e.balance(t, other.Address), genesis.Sub(amount...).Sub(fee...); !got.Equal(want) {
		t.Fatalf("after the send %s holds %s, want %s", other.Address, got, want)
	}
	var acct struct {
		Account struct {
			PubKey struct {
				Type string `json:"@type"`
			} `json:"pub_key"`
		} `json:"account"`
	}
	mustJSON(t, e.get(t, "/cosmos/auth/v1beta1/accounts/"+other.Address), &acct)
	if acct.Account.PubKey.Type != pubKeyType[otherType] {
		t.Fatalf("the account's key after its first tx: %q, want %s", acct.Account.PubKey.Type, pubKeyType[otherType])
	}
}

// The node makes blocks on its own, says what it is where clients and preflight read it
// (CometBFT's abci_info and status, the SDK's node_info, Initia's fee routes), serves on
// loopback only and frees its ports when stopped.
func servesAndStops(t *testing.T, e *env) {
	ctx := context.Background()
	ep := e.r.Endpoints()
	if e.r.VM() != e.n.VM || e.r.ChainID() != e.n.ChainID || ep.JSONRPC != "" ||
		!strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.REST, "http://127.0.0.1:") {
		t.Fatalf("rollup vm %s chain %s endpoints %+v", e.r.VM(), e.r.ChainID(), ep)
	}
	info, err := e.c.Node.ABCIInfo(ctx)
	version := info.Version
	if err != nil || info.LastBlockHeight < 1 || version == "" || e.n.Version != "" && version != e.n.Version {
		t.Fatalf("abci_info %+v, want version %q: %v", info, e.n.Version, err)
	}
	st, err := e.c.Node.Status(ctx)
	if err != nil || st.ChainID != e.n.ChainID {
		t.Fatalf("status %+v: %v", st, err)
	}
	e.waitBlocks(t, 3)

	var ni struct {
		Default struct {
			Network string `json:"network"`
		} `json:"default_node_info"`
		App struct {
			Name, AppName, Version string
		} `json:"application_version"`
	}
	mustJSON(t, e.get(t, "/cosmos/base/tendermint/v1beta1/node_info"), &ni)
	if ni.Default.Network != e.n.ChainID || ni.App.Name != e.spec.Minitia || ni.App.Version != version {
		t.Fatalf("node_info %+v, want %s %s", ni, e.spec.Minitia, version)
	}
	var params struct {
		Params struct {
			MinGasPrices []struct{ Denom, Amount string } `json:"min_gas_prices"`
		} `json:"params"`
	}
	mustJSON(t, e.get(t, "/opinit/opchild/v1/params"), &params)
	if len(params.Params.MinGasPrices) != 1 || params.Params.MinGasPrices[0].Denom != denom {
		t.Fatalf("opchild params %+v", params)
	}

	if err := e.r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{ep.CometRPC, ep.REST} {
		ln, err := net.Listen("tcp", strings.TrimPrefix(u, "http://"))
		if err != nil {
			t.Fatalf("port of %s still taken after Stop: %v", u, err)
		}
		ln.Close()
	}
}

// A send moves coins, and on Move they are Move coins, as on minimove: the recipient's
// primary fungible store (a 0x1::fungible_asset::FungibleStore resource at the object its
// address and the denom's metadata derive) holds what the bank reports, and the bank's
// queries (balance, all and spendable balances, supply) agree with each other.
func sendsMoveCoins(t *testing.T, e *env) {
	fresh := make([]byte, 20)
	if _, err := rand.Read(fresh); err != nil {
		t.Fatal(err)
	}
	to := e.c.Enc.MustAddr(fresh)
	e.mustSend(t, e.deployer, &banktypes.MsgSend{FromAddress: e.deployer.Address, ToAddress: to, Amount: sdk.NewCoins(sdk.NewInt64Coin(denom, 1234))})
	if got := e.balance(t, to); !got.Equal(sdk.NewCoins(sdk.NewInt64Coin(denom, 1234))) {
		t.Fatalf("recipient's balances %v, want 1234%s", got, denom)
	}
	var one struct {
		Balance sdk.Coin `json:"balance"`
	}
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/balances/"+to+"/by_denom?denom="+denom), &one)
	var spendable struct {
		Balances sdk.Coins `json:"balances"`
	}
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/spendable_balances/"+to), &spendable)
	if one.Balance.Amount.Int64() != 1234 || !spendable.Balances.Equal(e.balance(t, to)) {
		t.Fatalf("by denom %v, spendable %v", one.Balance, spendable.Balances)
	}
	var supply struct {
		Amount sdk.Coin `json:"amount"`
	}
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/supply/by_denom?denom="+denom), &supply)
	if !supply.Amount.Amount.IsPositive() {
		t.Fatalf("supply of %s: %v", denom, supply.Amount)
	}
	if e.n.VM != vip.Move {
		return
	}
	var meta struct {
		Metadata string `json:"metadata"`
	}
	mustJSON(t, e.get(t, "/initia/move/v1/metadata?denom="+denom), &meta)
	owner, err := e.c.Enc.Address.StringToBytes(to)
	if err != nil {
		t.Fatal(err)
	}
	metadata, err := movebcs.ParseAddress(meta.Metadata)
	if err != nil {
		t.Fatalf("metadata %q: %v", meta.Metadata, err)
	}
	h := sha3.New256()
	ownerAddr := movebcs.AccountAddress(owner)
	h.Write(ownerAddr[:])
	h.Write(metadata[:])
	h.Write([]byte{0xFC})
	var store movebcs.Address
	copy(store[:], h.Sum(nil))
	var res struct {
		Resource struct {
			MoveResource string `json:"move_resource"`
		} `json:"resource"`
	}
	mustJSON(t, e.get(t, "/initia/move/v1/accounts/"+store.String()+"/resources/by_struct_tag?struct_tag=0x1::fungible_asset::FungibleStore"), &res)
	if !strings.Contains(res.Resource.MoveResource, `"balance":"1234"`) {
		t.Fatalf("the recipient's primary store: %s", res.Resource.MoveResource)
	}
	listsMoveIssuedCoins(t, e, fresh)
}

// A coin issued in Move (0x1::managed_coin) shows in the bank's lists beside the fee denom,
// as on a minimove, whose bank walks the primary fungible store's tables: the holder's
// balances, the total supply, and x/move's denom of the coin's metadata.
func listsMoveIssuedCoins(t *testing.T, e *env, holder []byte) {
	issuer := vmAddr(e.deployer)
	h := sha3.New256()
	h.Write(issuer[:])
	h.Write([]byte("NODE"))
	h.Write([]byte{0xFE})
	var metadata movebcs.Address
	copy(metadata[:], h.Sum(nil))
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	call := func(fn string, args ...string) sdk.Msg {
		return &initiamove.MsgExecuteJSON{Sender: e.deployer.Address, ModuleAddress: "0x1", ModuleName: "managed_coin", FunctionName: fn, Args: args}
	}
	e.mustSend(t, e.deployer, call("initialize", "null", q("Node Coin"), q("NODE"), "6", q(""), q("")),
		call("mint_to", q(movebcs.AccountAddress(holder).String()), q(metadata.String()), q("250")))
	coin := sdk.NewInt64Coin("move/"+strings.TrimPrefix(metadata.String(), "0x"), 250)
	to := e.c.Enc.MustAddr(holder)
	if got, want := e.balance(t, to), sdk.NewCoins(coin, sdk.NewInt64Coin(denom, 1234)); !got.Equal(want) {
		t.Fatalf("the holder's balances %v, want %v", got, want)
	}
	var supply struct {
		Supply sdk.Coins `json:"supply"`
	}
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/supply"), &supply)
	if got := supply.Supply.AmountOf(coin.Denom); !got.Equal(coin.Amount) || !supply.Supply.AmountOf(denom).IsPositive() {
		t.Fatalf("total supply %v, want %v and the fee denom", supply.Supply, coin)
	}
	var named struct {
		Denom string `json:"denom"`
	}
	mustJSON(t, e.get(t, "/initia/move/v1/denom?metadata="+metadata.String()), &named)
	if named.Denom != coin.Denom {
		t.Fatalf("denom of %s: %q, want %q", metadata, named.Denom, coin.Denom)
	}
}
