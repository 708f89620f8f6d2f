// Package nodetest is the node suite the Move and the Wasm rollups of the project's minitia
// app share: the same scoring life cycle, refusals of bad txs, failed txs, REST and RPC
// shapes, funding of both coin types and release of ports on a node of each VM, driven with
// the raw Cosmos messages an outside client sends and judged by the chain's own words. What
// differs between the VMs (vip_score's messages, events, reads and errors) is one contract
// value per VM (wasm.go, move.go). The caller starts the node, on any engine of the app.
//
// It is test infrastructure: only tests import it (deployer/direction_test.go checks).
package nodetest

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	abci "github.com/cometbft/cometbft/abci/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet"
)

// The app's settings the suite judges the node by: the defaults of every engine.
const (
	prefix = "init"
	denom  = "umin"
)

// minGasPrice is the app's minimum gas price (0.15umin).
var minGasPrice = sdk.NewDecCoinFromDec(denom, sdkmath.LegacyMustNewDecFromStr("0.15"))

// Node is how the suite gets a fresh node of one VM, and what that node was started with.
type Node struct {
	VM vip.VM
	// Start starts a fresh node with at least two funded accounts, each with its mnemonic and
	// that mnemonic's account of the other coin type; the suite stops it.
	Start func(t *testing.T) localnet.Rollup
	// ChainID is the chain id it was started with; Version the version abci_info and
	// node_info report ("": whatever it is, the same in both).
	ChainID, Version string
}

// StartOn is a Node.Start that starts a fresh node of vm on an engine (the dev node as a
// process or in a container), failing the test when it cannot.
func StartOn(e localnet.Engine, vm vip.VM) func(*testing.T) localnet.Rollup {
	return func(t *testing.T) localnet.Rollup {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := e.StartRollup(ctx, vm)
		if err != nil {
			t.Fatalf("start the %s dev node (%s engine): %v", vm, e.Name(), err)
		}
		return r
	}
}

// Run runs every behaviour of the suite on its own fresh node of n.VM.
func Run(t *testing.T, n Node) {
	for _, b := range []struct {
		name string
		run  func(*testing.T, *env)
	}{
		{"DeploysUpdatesReadsBackAndFinalizes", scoringLifecycle},
		{"RefusesBadTxsWithTheChainsError", refusesBadTxs},
		{"FailedTxWritesNothingButPaysItsFee", failedTxWritesNothing},
		{"AnswersInTheRESTShapesClientsRead", restShapes},
		{"FundsAndSignsWithBothCoinTypes", fundsBothCoinTypes},
		{"SimulatesWithTheFeeDeductionAllowance", simulationCoversDelivery},
		{"RefusesASendAboveU64AsItsMinitiaDoes", refusesSendAboveU64},
		{"RefusesASendAboveTheBalanceAsItsMinitiaDoes", refusesSendAboveBalance},
		{"SendsCoinsThatAreMoveCoinsOnMove", sendsMoveCoins},
		{"MakesBlocksServesItsInfoAndFreesItsPortsOnStop", servesAndStops},
	} {
		t.Run(b.name, func(t *testing.T) { b.run(t, start(t, n)) })
	}
}

// contract is vip_score on one VM as the suite drives it: the messages its chain takes, what
// its events and reads say, and the chain's words for the failures the suite provokes.
type contract interface {
	// register adds the VM's messages to the client's encoding.
	register(codectypes.InterfaceRegistry)
	// deploy puts vip_score on the chain with e.deployer allowed to write and initStage
	// open, checks what the chain reports of it, and returns how many txs it sent.
	deploy(t *testing.T, e *env, initStage uint64) (txs int)
	// handle is the deployed contract as its "execute" events name it.
	handle() string
	// addr is u as the contract takes and reports addresses.
	addr(u user) string
	update(sender string, stage uint64, pairs []pair) sdk.Msg
	finalize(sender string, stage uint64) sdk.Msg
	// executeAction is the message type of update and finalize (the "message" event's action).
	executeAction() string
	// executed are the contracts a tx's "execute" events name; updated the addresses its
	// update events name; finalized the stages its finalize events name.
	executed(res *sdk.TxResponse) []string
	updated(res *sdk.TxResponse) []string
	finalized(res *sdk.TxResponse) []string
	// stage reads a stage the contract has; scores all of a stage's scores (through the
	// contract's paged list); score one address's, false when it has none.
	stage(t *testing.T, e *env, stage uint64) stageInfo
	scores(t *testing.T, e *env, stage uint64) map[string]uint64
	score(t *testing.T, e *env, addr string, stage uint64) (uint64, bool)
	// wantNotAllowed checks the chain's refusal of a writer off the allow list.
	wantNotAllowed(t *testing.T, res *sdk.TxResponse)
	// failingUpdate is an update whose first pair is written before a later one fails the
	// message; wantFailedUpdate checks the chain's words for it.
	failingUpdate(sender string, stage uint64, first pair) sdk.Msg
	wantFailedUpdate(t *testing.T, res *sdk.TxResponse)
	// outOfGas is a gas limit that passes the ante handler but not an update of one address,
	// and where the chain says the gas ran out.
	outOfGas() (gas uint64, location string)
	// restShapes checks the VM's own REST routes on a contract deployed at stage.
	restShapes(t *testing.T, e *env, stage uint64)
}

// instantiator is a VM whose contracts are instances of stored code (Wasm; a Move module is
// named by its publisher's address, so there is no instance id a failure could use up).
type instantiator interface {
	// failedInstantiateUsesNoInstance: a failed instantiate leaves the next instance its id.
	failedInstantiateUsesNoInstance(t *testing.T, e *env)
}

// contracts are each VM's vip_score driver.
var contracts = map[vip.VM]func() contract{
	vip.Wasm: func() contract { return &wasmContract{} },
	vip.Move: func() contract { return &moveContract{} },
}

// env is a started node with a client built only from its URLs, as an outside client's.
type env struct {
	n        Node
	r        localnet.Rollup
	spec     vip.Spec
	keyType  vip.KeyType // of the funded accounts' keys
	c        *cosmostx.Client
	vm       contract
	deployer *cosmostx.Signer
	outsider *cosmostx.Signer
}

func start(t *testing.T, n Node) *env {
	t.Helper()
	spec, err := vip.Describe(n.VM)
	if err != nil {
		t.Fatal(err)
	}
	vm := contracts[n.VM]
	if vm == nil {
		t.Fatalf("nodetest: no contract driver for %s", n.VM)
	}
	r := n.Start(t)
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	e := &env{n: n, r: r, spec: spec, keyType: spec.KeyType, vm: vm()}
	if kt, ok := r.(localnet.KeyTyped); ok {
		e.keyType = kt.KeyType()
	}
	enc, err := cosmostx.NewEncoding(prefix, e.vm.register)
	if err != nil {
		t.Fatal(err)
	}
	ep := r.Endpoints()
	if e.c, err = cosmostx.New(ep.CometRPC, ep.REST, r.ChainID(), enc, minGasPrice); err != nil {
		t.Fatal(err)
	}
	funded := r.Funded()
	if len(funded) < 2 {
		t.Fatalf("funded accounts: %d, want 2", len(funded))
	}
	e.deployer = e.signer(t, funded[0].PrivateKey)
	e.outsider = e.signer(t, funded[1].PrivateKey)
	return e
}

func (e *env) signer(t *testing.T, keyHex string) *cosmostx.Signer {
	t.Helper()
	secret, err := hex.DecodeString(keyHex)
	if err != nil {
		t.Fatal(err)
	}
	k, err := keys.PrivKeyFromBytes(secret, e.keyType)
	if err != nil {
		t.Fatal(err)
	}
	s, err := e.c.Signer(context.Background(), k)
	if err != nil {
		t.Fatalf("load signer: %v", err)
	}
	return s
}

// send simulates msgs, signs them with 1.3× the simulated gas and broadcasts them.
func (e *env) send(t *testing.T, s *cosmostx.Signer, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	ctx := context.Background()
	sim, err := e.c.Simulate(ctx, s, msgs...)
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	return e.sendFixed(t, s, sim.GasInfo.GasUsed*13/10, msgs...)
}

// sendFixed signs msgs with a fixed gas limit (for txs that are meant to fail in a block,
// which a simulation would stop) and broadcasts them.
func (e *env) sendFixed(t *testing.T, s *cosmostx.Signer, gas uint64, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	res, err := e.c.Send(context.Background(), s, gas, msgs...)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return res
}

func (e *env) mustSend(t *testing.T, s *cosmostx.Signer, msgs ...sdk.Msg) *sdk.TxResponse {
	t.Helper()
	res := e.send(t, s, msgs...)
	if res.Code != 0 {
		t.Fatalf("tx %s failed: codespace %s code %d: %s", res.TxHash, res.Codespace, res.Code, res.RawLog)
	}
	return res
}

// height is the node's latest height, as CometBFT's status reports it.
func (e *env) height(t *testing.T) int64 {
	t.Helper()
	h, err := e.c.Node.LatestHeight(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int64(h)
}

// waitBlocks waits until n more blocks are committed.
func (e *env) waitBlocks(t *testing.T, n int64) {
	t.Helper()
	h := e.height(t)
	for deadline := time.Now().Add(10 * time.Second); e.height(t) < h+n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no blocks on the interval: height %d -> %d", h, e.height(t))
		}
	}
}

func (e *env) balance(t *testing.T, addr string) sdk.Coins {
	t.Helper()
	var res struct {
		Balances sdk.Coins `json:"balances"`
	}
	mustJSON(t, e.get(t, "/cosmos/bank/v1beta1/balances/"+addr), &res)
	return res.Balances
}

// get is a GET of the REST path that must answer 200.
func (e *env) get(t *testing.T, path string) []byte {
	t.Helper()
	status, body := e.getStatus(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	return body
}

func (e *env) getStatus(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(e.c.Node.REST.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, body
}

func mustJSON(t *testing.T, body []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// user is a scored account's 20 bytes; each VM writes it its own way (contract.addr).
type user []byte

func users(n int) []user {
	out := make([]user, n)
	for i := range out {
		payload := make([]byte, 20)
		for j := range payload {
			payload[j] = byte(i*31 + j*7 + 3)
		}
		payload[0], payload[1] = byte(i>>8), byte(i)
		out[i] = payload
	}
	return out
}

func bech32Of(b []byte) string {
	s, err := bech32.ConvertAndEncode(prefix, b)
	if err != nil {
		panic(err) // 20 bytes and a fixed prefix always encode
	}
	return s
}

// pair is a score for an address as the contract takes it.
type pair struct {
	addr  string
	score uint64
}

// stageInfo is a stage as the contract reports it.
type stageInfo struct {
	Stage      uint64
	TotalScore uint64
	Finalized  bool
}

// executedEvents counts the tx's "execute" events of its messages (none when one failed).
func executedEvents(res *sdk.TxResponse) int {
	n := 0
	for _, ev := range res.Events {
		if ev.Type == "execute" && !frameworkCall(ev) {
			n++
		}
	}
	return n
}

// frameworkCall says an "execute" event is x/move's call of a 0x1 function on its own
// behalf (the bank's transfer of the fee, which a failed tx keeps, as on a minimove).
func frameworkCall(ev abci.Event) bool {
	for _, a := range ev.Attributes {
		if a.Key == "module_addr" && a.Value == "0x1" {
			return true
		}
	}
	return false
}
