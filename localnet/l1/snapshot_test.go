package l1

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/operation/audit"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// snapshotChain is the govChain at stage 7 with bridge 29 registered (init stage 8) and the
// L1 moved on to stage 10, so stages 7 to 9 have stage data.
func snapshotChain(t *testing.T) *govChain {
	c := newGovChain(t)
	checked, err := request(vip.EVM, "0x5FbDB2315678afecb367f032d93F642f64180aa3").Check()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.govExecute(checked.MsgGovExecute()); err != nil {
		t.Fatal(err)
	}
	c.exec(agent, c.vip, "vip", "set_stage", movebcs.ArgU64(10))
	return c
}

// agent is the govChain's agent (initialize got the zero address).
var agent = movebcs.Address{}

func (c *govChain) submit(sender movebcs.Address, bridge, version, stage uint64, root []byte, total uint64) error {
	return c.run(sender, c.vip, "vip", "submit_snapshot", movebcs.ArgU64(bridge), movebcs.ArgU64(version), movebcs.ArgU64(stage), bytesArg(root), movebcs.ArgU64(total))
}

func (c *govChain) claim(user movebcs.Address, version uint64, stages []uint64, lines []snapshot.ProofLine) error {
	args, err := audit.ClaimArgs(29, version, stages, lines)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.run(user, c.vip, "vip", "batch_claim_user_reward_script", args...)
}

func (c *govChain) view(fn string, args ...[]byte) string {
	c.t.Helper()
	v, err := c.rt.View(c.store, c.env, 10_000_000, movevm.Function{Module: movevm.ModuleID{Address: c.vip, Name: "vip"}, Function: fn, Args: args})
	if err != nil {
		c.t.Fatalf("%s: %v", fn, err)
	}
	return v.JSON
}

// stageTree is a stage's tree of bridge 29 and its proof lines by address.
func stageTree(t *testing.T, stage uint64, scores map[byte]uint64) (*snapshot.Tree, map[snapshot.Address]snapshot.ProofLine) {
	b := snapshot.NewBuilder(29, stage, 0)
	for k, v := range scores {
		addr := bytes.Repeat([]byte{k}, 20)
		if err := b.Add(addr, v); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteProofs(&buf); err != nil {
		t.Fatal(err)
	}
	lines := map[snapshot.Address]snapshot.ProofLine{}
	if err := snapshot.ReadProofs(&buf, func(_ int, l snapshot.ProofLine) error { lines[l.Address] = l; return nil }); err != nil {
		t.Fatal(err)
	}
	return tr, lines
}

func addrArg(a movebcs.Address) []byte { return a[:] }

func bytesArg(b []byte) []byte {
	w := movebcs.NewWriter(len(b) + 1)
	w.Bytes(b)
	return w.Out()
}

func user(k byte) movebcs.Address { return movebcs.AccountAddress(bytes.Repeat([]byte{k}, 20)) }

// submit_snapshot's checks and abort codes are the real module's, and the claim entry runs
// the real score_hash and assert_merkle_proofs on the MoveVM over the proofs our audit
// package writes: a user's line passes; a changed score, proof or total does not.
func TestSnapshotsAndClaims(t *testing.T) {
	c := snapshotChain(t)
	tr8, lines8 := stageTree(t, 8, map[byte]uint64{0x11: 40, 0x22: 0, 0x33: 7, 0x44: 900, 0x55: 3})
	root8 := tr8.Root()

	// Submission refusals, each with the real (category, reason).
	wantAbort(t, c.submit(user(0x11), 29, 1, 8, root8[:], tr8.Total), 0x5, 1) // not the agent: EUNAUTHORIZED
	wantAbort(t, c.submit(agent, 29, 1, 10, root8[:], tr8.Total), 0x1, 25)    // the current stage: EINVALID_STAGE_SNAPSHOT
	wantAbort(t, c.submit(agent, 29, 1, 5, root8[:], tr8.Total), 0x6, 4)      // no stage data: ESTAGE_DATA_NOT_FOUND
	wantAbort(t, c.submit(agent, 29, 2, 8, root8[:], tr8.Total), 0x6, 5)      // another version: EBRIDGE_NOT_FOUND
	wantAbort(t, c.submit(agent, 29, 1, 9, root8[:], tr8.Total), 0x6, 8)      // stage 8 first: EPREV_STAGE_SNAPSHOT_NOT_FOUND
	if err := c.submit(agent, 29, 1, 8, root8[:], tr8.Total); err != nil {
		t.Fatal(err)
	}
	wantAbort(t, c.submit(agent, 29, 1, 8, root8[:], tr8.Total), 0x8, 3) // ESNAPSHOT_ALREADY_EXISTS

	var infos []struct{ BridgeID, Version string }
	if err := json.Unmarshal([]byte(c.view("get_bridge_infos")), &infos); err != nil || len(infos) != 1 || infos[0].Version != "1" {
		t.Fatalf("get_bridge_infos: %+v %v", infos, err)
	}

	line := lines8[snapshot.Address(user(0x44))]
	// The snapshot's block time is the claim's: the challenge period (0) has not passed.
	wantAbort(t, c.claim(user(0x44), 1, []uint64{8}, []snapshot.ProofLine{line}), 0x5, 21)
	c.env.BlockTimestamp++

	tampered := func(f func(l *snapshot.ProofLine)) snapshot.ProofLine {
		l := line
		l.Proof = nil
		for _, p := range line.Proof {
			l.Proof = append(l.Proof, bytes.Clone(p))
		}
		f(&l)
		return l
	}
	tests := []struct {
		name             string
		signer           movebcs.Address
		line             snapshot.ProofLine
		category, reason uint64
	}{
		{"score raised", user(0x44), tampered(func(l *snapshot.ProofLine) { l.Score++ }), 0x1, 10},
		{"proof element changed", user(0x44), tampered(func(l *snapshot.ProofLine) { l.Proof[0][5] ^= 1 }), 0x1, 10},
		{"proof element dropped", user(0x44), tampered(func(l *snapshot.ProofLine) { l.Proof = l.Proof[1:] }), 0x1, 10},
		{"proof element short", user(0x44), tampered(func(l *snapshot.ProofLine) { l.Proof[0] = l.Proof[0][:31] }), 0x1, 11},
		{"another account's line", user(0x33), line, 0x1, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantAbort(t, c.claim(tc.signer, 1, []uint64{8}, []snapshot.ProofLine{tc.line}), tc.category, tc.reason)
		})
	}
	if got := c.view("get_last_claimed_stage", addrArg(user(0x44)), movebcs.ArgU64(29), movebcs.ArgU64(1)); got != `"0"` {
		t.Fatalf("a refused claim was recorded: %s", got)
	}
	if err := c.claim(user(0x44), 1, []uint64{8}, []snapshot.ProofLine{line}); err != nil {
		t.Fatalf("the user's own proof line: %v", err)
	}
	if got := c.view("get_last_claimed_stage", addrArg(user(0x44)), movebcs.ArgU64(29), movebcs.ArgU64(1)); got != `"8"` {
		t.Fatalf("last claimed stage %s, want 8", got)
	}
	// A score of 0 is a leaf too; its claim needs no proof.
	zero := lines8[snapshot.Address(user(0x22))]
	zero.Proof = nil
	if err := c.claim(user(0x22), 1, []uint64{8}, []snapshot.ProofLine{zero}); err != nil {
		t.Fatalf("zero score: %v", err)
	}

	// Stage 9's snapshot holds another total than its tree: every proof fails, as a
	// wrong agent snapshot would make them.
	tr9, lines9 := stageTree(t, 9, map[byte]uint64{0x11: 5, 0x44: 6, 0x66: 7})
	root9 := tr9.Root()
	if err := c.submit(agent, 29, 1, 9, root9[:], tr9.Total+1); err != nil {
		t.Fatal(err)
	}
	c.env.BlockTimestamp++
	wantAbort(t, c.claim(user(0x11), 1, []uint64{9}, []snapshot.ProofLine{lines9[snapshot.Address(user(0x11))]}), 0x1, 10)
	// Batch shape: stages out of order (scores 0, so no proof is read first), and lists of
	// other lengths.
	unordered := [][]byte{movebcs.ArgU64(29), movebcs.ArgU64(1), movebcs.ArgU64s([]uint64{9, 8}), {2, 0, 0}, movebcs.ArgU64s([]uint64{0, 0})}
	wantAbort(t, c.run(user(0x22), c.vip, "vip", "batch_claim_user_reward_script", unordered...), 0x1, 20)
	args, _ := audit.ClaimArgs(29, 1, []uint64{9}, []snapshot.ProofLine{lines9[snapshot.Address(user(0x11))]})
	args[4] = movebcs.ArgU64s([]uint64{5, 5})
	wantAbort(t, c.run(user(0x11), c.vip, "vip", "batch_claim_user_reward_script", args...), 0x1, 17)
}

// Through the node: the agent's signed submit_snapshot, read back by deployer/operation/audit over the
// REST table routes a real L1 serves (ModuleStore, stage_data, snapshots by BCS key, the
// get_bridge_infos view), and a funded user's signed claim with a line of its proofs file.
func TestServerSnapshotReadBackAndClaim(t *testing.T) {
	requireLibs(t)
	ctx := context.Background()
	mnemonic, err := minitia.NewMnemonic()
	if err != nil {
		t.Fatal(err)
	}
	u, err := minitia.DeriveAccount(mnemonic, vip.EthSecp256k1, "init")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(ctx, WithStage(4), WithBridge(Bridge{ID: 3, VM: vip.EVM, Contract: "0x5FbDB2315678afecb367f032d93F642f64180aa3"}), WithFundedMnemonic(mnemonic))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Advance(ctx); err != nil { // stage 5 (the bridge's first) is open
		t.Fatal(err)
	}
	if _, err := s.Advance(ctx); err != nil { // stage 5 is over
		t.Fatal(err)
	}
	b := snapshot.NewBuilder(3, 5, 0)
	for _, row := range []struct {
		addr  []byte
		score uint64
	}{{u.Key.PubKey().Address(), 77}, {bytes.Repeat([]byte{9}, 20), 23}, {bytes.Repeat([]byte{8}, 20), 0}} {
		if err := b.Add(row.addr, row.score); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	if err := s.SubmitSnapshot(ctx, 3, 1, 5, root[:], tr.Total); err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitSnapshot(ctx, 3, 1, 5, root[:], tr.Total); err == nil {
		t.Fatal("a second snapshot of the same key was accepted")
	} else if a, ok := Abort(err); !ok || a.Category() != 0x8 || a.Reason() != 3 {
		t.Fatalf("second snapshot: %v", err)
	}

	l1 := l1node.NewReader(s.URL(), s.VIPAddress(), nil)
	v, err := l1.BridgeVersion(ctx, 3)
	if err != nil || v != 1 {
		t.Fatalf("version %d, %v", v, err)
	}
	snap, err := l1.Snapshot(ctx, 3, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(snap.MerkleRoot, root[:]) || snap.TotalL2Score != 100 || snap.CreateTime == 0 || audit.Compare(tr, snap) != audit.Match {
		t.Fatalf("snapshot read back %+v", snap)
	}
	if _, err := l1.Snapshot(ctx, 3, 1, 4); !errors.Is(err, l1node.ErrNoSnapshot) {
		t.Fatalf("stage 4: %v", err)
	}

	addr, _ := snapshot.L1Address(u.Key.PubKey().Address())
	i, ok := tr.Find(addr)
	if !ok {
		t.Fatal("user not a leaf")
	}
	_, score, _ := tr.Leaf(i)
	var proof [][]byte
	for _, p := range tr.Proof(i) {
		proof = append(proof, bytes.Clone(p[:]))
	}
	line := snapshot.ProofLine{Address: addr, Score: score, Proof: proof}
	// The claim's block must be in a later second than the snapshot's.
	if err := s.AwaitSecondAfter(ctx, time.Unix(int64(snap.CreateTime), 0)); err != nil {
		t.Fatal(err)
	}
	bad := line
	bad.Score++
	args, _ := audit.ClaimArgs(3, 1, []uint64{5}, []snapshot.ProofLine{bad})
	if a, ok := Abort(s.Claim(ctx, u.Key, args)); !ok || a.Category() != 0x1 || a.Reason() != 10 {
		t.Fatalf("a raised score's claim: %+v %v", a, ok)
	}
	args, _ = audit.ClaimArgs(3, 1, []uint64{5}, []snapshot.ProofLine{line})
	if err := s.Claim(ctx, u.Key, args); err != nil {
		t.Fatalf("the user's claim: %v", err)
	}
}
