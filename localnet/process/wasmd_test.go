package process

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/wasm"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/wasmddev"
)

// Our CosmWasm contract on the real wasmd: store, instantiate, update_scores, finalize,
// read back, and a contract error as wasmd reports it.
func TestWasmdRollupRunsOurContract(t *testing.T) {
	e := Engine{}
	requireNode(t, e, vip.Wasm)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	w := r.(*WasmdRollup)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.REST, "http://127.0.0.1:") {
		t.Fatalf("endpoints %+v", ep)
	}
	ver, err := cosmosnode.New("", ep.CometRPC, nil).ABCIInfo(ctx)
	if err != nil || ver.LastBlockHeight == 0 {
		t.Fatalf("abci_info %+v, %v", ver, err)
	}

	enc, err := cosmostx.NewEncoding(wasmddev.Prefix, wasmtypes.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cosmostx.New(ep.CometRPC, ep.REST, r.ChainID(), enc, sdk.NewDecCoinFromDec(wasmddev.Denom, sdkmath.LegacyMustNewDecFromStr("0.025")))
	if err != nil {
		t.Fatal(err)
	}
	signer := func(a int) *cosmostx.Signer {
		secret, _ := hex.DecodeString(r.Funded()[a].PrivateKey)
		s, err := c.Signer(ctx, &secp256k1.PrivKey{Key: secret})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	owner, outsider := signer(0), signer(1)
	send := func(s *cosmostx.Signer, msgs ...sdk.Msg) *sdk.TxResponse {
		t.Helper()
		sim, err := c.Simulate(ctx, s, msgs...)
		if err != nil {
			return &sdk.TxResponse{Code: 1, RawLog: err.Error()}
		}
		res, err := c.Send(ctx, s, sim.GasInfo.GasUsed*14/10, msgs...)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := send(owner, &wasmtypes.MsgStoreCode{Sender: owner.Address, WASMByteCode: wasmcontract.Code()})
	codeID := eventAttr(t, res, "store_code", "code_id")
	id, _ := strconv.ParseUint(codeID, 10, 64)
	init, _ := json.Marshal(map[string]any{"allow_list": []string{owner.Address}, "init_stage": 3})
	res = send(owner, &wasmtypes.MsgInstantiateContract{Sender: owner.Address, Admin: owner.Address, CodeID: id, Label: "vip-score", Msg: init})
	contract := eventAttr(t, res, "instantiate", "_contract_address")

	var pairs [][2]any
	for i := range 50 {
		acct, err := minitia.DeriveAccount(mustMnemonic(t), vip.Secp256k1, wasmddev.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, [2]any{acct.Address, i + 1})
	}
	exec := func(s *cosmostx.Signer, msg any) *sdk.TxResponse {
		b, _ := json.Marshal(msg)
		return send(s, &wasmtypes.MsgExecuteContract{Sender: s.Address, Contract: contract, Msg: b})
	}
	if res := exec(owner, map[string]any{"update_scores": map[string]any{"stage": 3, "scores": pairs}}); res.Code != 0 {
		t.Fatalf("update_scores: code %d %s", res.Code, res.RawLog)
	}
	if res := exec(outsider, map[string]any{"update_scores": map[string]any{"stage": 3, "scores": pairs[:1]}}); res.Code == 0 || !strings.Contains(res.RawLog, "not allowed") {
		t.Fatalf("outsider update: code %d %q, want the contract's refusal", res.Code, res.RawLog)
	}
	if res := exec(owner, map[string]any{"finalize_stage": map[string]any{"stage": 3}}); res.Code != 0 {
		t.Fatalf("finalize: code %d %s", res.Code, res.RawLog)
	}
	var info struct {
		Stage      uint64 `json:"stage"`
		TotalScore uint64 `json:"total_score"`
		IsFinal    bool   `json:"is_finalized"`
	}
	if err := wasm.Smart(ctx, c, contract, map[string]any{"get_stage_info": map[string]any{"stage": 3}}, &info); err != nil {
		t.Fatal(err)
	}
	if info.TotalScore != 1275 || !info.IsFinal {
		t.Fatalf("stage 3 = %+v, want total 1275 and finalized", info)
	}

	// A restart keeps the chain.
	if err := w.Restart(ctx, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := wasm.Smart(ctx, c, contract, map[string]any{"get_stage_info": map[string]any{"stage": 3}}, &info); err != nil || !info.IsFinal {
		t.Fatalf("after restart: %+v, %v", info, err)
	}

	pid := w.node.cmd.Process.Pid
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("wasmd pid %d alive after Stop", pid)
	}
	if _, err := os.Stat(w.node.home); !os.IsNotExist(err) {
		t.Fatalf("home left behind: %v", err)
	}
}

func mustMnemonic(t *testing.T) string {
	m, err := minitia.NewMnemonic()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func eventAttr(t *testing.T, res *sdk.TxResponse, typ, key string) string {
	t.Helper()
	if res.Code != 0 {
		t.Fatalf("tx failed: code %d %s", res.Code, res.RawLog)
	}
	for _, ev := range res.Events {
		if ev.Type != typ {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == key {
				return a.Value
			}
		}
	}
	t.Fatalf("no %s.%s in %v", typ, key, res.Events)
	return ""
}

// A wasmd started with indexer = "null": a push is refused before it sends anything, naming
// the config line, and a lookup is refused rather than retried.
func TestWasmdWithoutATxIndexRefusesAPush(t *testing.T) {
	e := Engine{}
	requireNode(t, e, vip.Wasm)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Stop(context.Background()) })
	ep := r.Endpoints()
	secret, _ := hex.DecodeString(r.Funded()[0].PrivateKey)
	key := &secp256k1.PrivKey{Key: secret}
	s, err := deployer.Open(ctx, deployer.Config{VM: vip.Wasm, CometRPC: ep.CometRPC, REST: ep.REST, Operator: cosmostx.SoftKey(key, "operator key"), Push: deployer.PushConfig{JournalDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Deploy(ctx, 1); err != nil {
		t.Fatal(err)
	}

	w := r.(*WasmdRollup)
	cfg := w.node.home + "/config/config.toml"
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `indexer = "kv"`) {
		t.Fatalf("%s has no kv indexer line to turn off", cfg)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), `indexer = "kv"`, `indexer = "null"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := w.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}

	s, err = deployer.Open(ctx, deployer.Config{VM: vip.Wasm, CometRPC: ep.CometRPC, REST: ep.REST, Operator: cosmostx.SoftKey(key, "operator key"), Contract: s.Contract(), Push: deployer.PushConfig{JournalDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	seq := func() uint64 {
		c := s.VMContract().(*wasm.Contract).C
		_, n, err := c.Account(ctx, c.Address(key.PubKey()))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := seq()
	_, err = s.UpdateScores(ctx, 1, scores.GenerateBech32(20, 5, wasmddev.Prefix))
	if !errors.Is(err, cosmostx.ErrTxIndexDisabled) || !strings.Contains(err.Error(), `indexer = "kv"`) {
		t.Fatalf("push against a node without a tx index: %v", err)
	}
	if after := seq(); after != before {
		t.Fatalf("the refused push sent %d txs", after-before)
	}
	_, err = (&cosmostx.PushChain{C: s.VMContract().(*wasm.Contract).C}).Lookup(ctx, strings.Repeat("AB", 32))
	if !errors.Is(err, cosmostx.ErrTxIndexDisabled) || !push.IsRejected(err) {
		t.Fatalf("lookup: %v, want a refusal naming the index", err)
	}
}
