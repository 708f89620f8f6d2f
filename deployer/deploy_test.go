package deployer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/vip"
)

// fakeDeployChain is a chain of one deployer: txs it is handed go to its pool, and mine()
// includes them in sequence order; a deploy tx creates a contract at "contract-<seq>".
type fakeDeployChain struct {
	mu        sync.Mutex
	committed uint64
	pool      map[string]push.SignedTx
	mined     map[string]push.Outcome
	stageOf   map[string]uint64 // healthy contracts and their first stage
	created   map[string]string // tx hash -> contract
	existing  string
	autoMine  bool
	lose      bool // the node drops what it is handed (a restart)
	refuse    error
	fail      bool // included txs fail
	signs     int
	sent      [][]byte
	// atBroadcast runs before each broadcast (a test reads the journal there).
	atBroadcast func(push.SignedTx)
	// addrKnown is false for a VM whose chain assigns the address at inclusion (Wasm).
	addrUnknown bool
	// unindexed txs are in a block but unknown to Lookup (a node stopped before indexing).
	unindexed map[string]bool
}

func newFakeDeployChain() *fakeDeployChain {
	return &fakeDeployChain{pool: map[string]push.SignedTx{}, mined: map[string]push.Outcome{}, stageOf: map[string]uint64{},
		created: map[string]string{}, autoMine: true}
}

func rawOf(stage, seq uint64) []byte { return fmt.Appendf(nil, "deploy stage=%d seq=%d", stage, seq) }

func (f *fakeDeployChain) Sequence(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.committed + uint64(len(f.pool)), nil
}

func (f *fakeDeployChain) Committed(context.Context) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.committed, nil
}

func (f *fakeDeployChain) SignDeploy(_ context.Context, stage, seq uint64) (push.SignedTx, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.signs++
	addr := fmt.Sprintf("contract-%d", seq)
	if f.addrUnknown {
		addr = ""
	}
	return push.SignedTx{Hash: fmt.Sprintf("tx-%d-%d", stage, seq), Raw: rawOf(stage, seq), Sequence: seq}, addr, nil
}

func (f *fakeDeployChain) Broadcast(_ context.Context, tx push.SignedTx) error {
	if f.atBroadcast != nil {
		f.atBroadcast(tx)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, tx.Raw)
	if f.refuse != nil {
		return push.Rejected(f.refuse)
	}
	if _, ok := f.mined[tx.Hash]; ok || tx.Sequence < f.committed {
		return push.Rejected(errors.New("nonce too low"))
	}
	if f.lose {
		return nil
	}
	f.pool[tx.Hash] = tx
	if f.autoMine {
		f.mineLocked()
	}
	return nil
}

// mine includes the pool's txs.
func (f *fakeDeployChain) mine() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mineLocked()
}

func (f *fakeDeployChain) mineLocked() {
	for {
		var next *push.SignedTx
		for _, tx := range f.pool {
			if tx.Sequence == f.committed {
				next = &tx
			}
		}
		if next == nil {
			return
		}
		delete(f.pool, next.Hash)
		f.committed++
		if f.fail {
			f.mined[next.Hash] = push.Outcome{Found: true, Err: errors.New("out of gas")}
			continue
		}
		var stage, seq uint64
		fmt.Sscanf(string(next.Raw), "deploy stage=%d seq=%d", &stage, &seq)
		addr := fmt.Sprintf("contract-%d", seq)
		f.mined[next.Hash] = push.Outcome{Found: true, Success: true, GasUsed: 1000, Height: 7}
		f.stageOf[addr] = stage
		f.created[next.Hash] = addr
	}
}

// spend gives the deployer's next sequence to a tx of its own (another tool's).
func (f *fakeDeployChain) spend() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pool = map[string]push.SignedTx{}
	f.committed++
}

func (f *fakeDeployChain) Lookup(_ context.Context, hash string) (push.Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if out, ok := f.mined[hash]; ok && !f.unindexed[hash] {
		return out, nil
	}
	_, pending := f.pool[hash]
	return push.Outcome{Pending: pending}, nil
}

func (f *fakeDeployChain) Created(_ context.Context, hash string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.created[hash], nil
}

func (f *fakeDeployChain) Probe(_ context.Context, addr string) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, ok := f.stageOf[addr]
	if !ok {
		return 0, fmt.Errorf("no contract code at %s", addr)
	}
	return st, nil
}

func (f *fakeDeployChain) Existing(context.Context) (string, error) { return f.existing, nil }

func (f *fakeDeployChain) contracts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.stageOf)
}

func deployRun(t *testing.T) DeployRun {
	return DeployRun{Journal: journal.DeployPath(t.TempDir(), "evm-1", "0xDeployer"), Poll: time.Millisecond, ResendAfter: 5 * time.Millisecond}
}

func TestDeployJournalsTheSignedTxAndItsAddressBeforeBroadcast(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	run := deployRun(t)
	var seen journal.ChunkState
	f.atBroadcast = func(push.SignedTx) {
		j, err := journal.Open(run.Journal)
		if err != nil {
			t.Errorf("open journal at broadcast: %v", err)
			return
		}
		defer j.Close()
		seen = j.Chunk(0)
	}
	res, err := RunDeploy(ctx, f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusDeployed || res.Contract != "contract-0" || res.InitStage != 4 || res.TxHash != "tx-4-0" {
		t.Fatalf("result %+v", res)
	}
	if len(seen.Attempts) != 1 || seen.Attempts[0].Contract != "contract-0" || seen.Attempts[0].Hash != "tx-4-0" || seen.Attempts[0].Raw == "" {
		t.Fatalf("at broadcast the journal held %+v, want the signed tx with its contract address", seen)
	}
}

func TestSecondDeployReportsTheHealthyDeploymentAndSendsNothing(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	run := deployRun(t)
	first, err := RunDeploy(ctx, f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	second, err := RunDeploy(ctx, f, run, 9, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if second.Status != vip.StatusAlready || second.Contract != first.Contract || second.InitStage != 4 || second.TxHash != first.TxHash {
		t.Fatalf("second deploy %+v, want already deployed at %s stage 4", second, first.Contract)
	}
	if f.signs != 1 || len(f.sent) != 1 || f.committed != 1 {
		t.Fatalf("signed %d, sent %d, nonce %d: the second deploy sent something", f.signs, len(f.sent), f.committed)
	}
}

func TestNewDeploysAnotherContract(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	run := deployRun(t)
	if _, err := RunDeploy(ctx, f, run, 4, DeployConfig{}); err != nil {
		t.Fatal(err)
	}
	res, err := RunDeploy(ctx, f, run, 5, DeployConfig{New: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusDeployed || res.Contract != "contract-1" || f.contracts() != 2 {
		t.Fatalf("--new gave %+v with %d contracts", res, f.contracts())
	}
	// The newest deployment is the one a later run reports.
	again, err := RunDeploy(ctx, f, run, 5, DeployConfig{})
	if err != nil || again.Status != vip.StatusAlready || again.Contract != "contract-1" {
		t.Fatalf("after --new: %+v, %v", again, err)
	}
}

func TestRerunFinishesADeployKilledAfterBroadcast(t *testing.T) {
	f := newFakeDeployChain()
	f.autoMine = false
	run := deployRun(t)
	ctx, kill := context.WithCancel(context.Background())
	if _, err := RunDeploy(ctx, f, run, 4, DeployConfig{Broadcasted: func(string) { kill() }}); !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: %v", err)
	}
	f.mine()
	res, err := RunDeploy(context.Background(), f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusResumed || res.Contract != "contract-0" || res.TxHash != "tx-4-0" {
		t.Fatalf("re-run %+v, want the first deploy finished", res)
	}
	if f.signs != 1 || f.contracts() != 1 {
		t.Fatalf("signed %d, %d contracts: the re-run deployed again", f.signs, f.contracts())
	}
}

func TestRerunWaitsForADeployStillInThePool(t *testing.T) {
	f := newFakeDeployChain()
	f.autoMine = false
	run := deployRun(t)
	ctx, kill := context.WithCancel(context.Background())
	_, _ = RunDeploy(ctx, f, run, 4, DeployConfig{Broadcasted: func(string) { kill() }})
	go func() { time.Sleep(20 * time.Millisecond); f.mine() }()
	res, err := RunDeploy(context.Background(), f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusResumed || res.Contract != "contract-0" || f.signs != 1 || f.contracts() != 1 {
		t.Fatalf("re-run %+v, signed %d, %d contracts", res, f.signs, f.contracts())
	}
}

func TestRerunSendsTheSameBytesWhenTheNodeLostTheTx(t *testing.T) {
	f := newFakeDeployChain()
	f.lose = true
	run := deployRun(t)
	ctx, kill := context.WithCancel(context.Background())
	_, _ = RunDeploy(ctx, f, run, 4, DeployConfig{Broadcasted: func(string) { kill() }})
	f.lose = false
	res, err := RunDeploy(context.Background(), f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusResumed || f.signs != 1 || len(f.sent) != 2 || !bytes.Equal(f.sent[0], f.sent[1]) {
		t.Fatalf("re-run %+v, signed %d, sent %q: want the journaled bytes sent again", res, f.signs, f.sent)
	}
}

func TestRerunSignsAnewWhenTheSequenceWentToAnotherTx(t *testing.T) {
	f := newFakeDeployChain()
	f.lose = true
	run := deployRun(t)
	ctx, kill := context.WithCancel(context.Background())
	_, _ = RunDeploy(ctx, f, run, 4, DeployConfig{Broadcasted: func(string) { kill() }})
	f.lose = false
	f.spend()
	res, err := RunDeploy(context.Background(), f, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusDeployed || res.Contract != "contract-1" || f.signs != 2 || f.contracts() != 1 {
		t.Fatalf("re-run %+v, signed %d, %d contracts", res, f.signs, f.contracts())
	}
	j, err := journal.Open(run.Journal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if st := j.Chunk(0); !st.Confirmed || st.Contract != "contract-1" || j.Last() != 0 {
		t.Fatalf("journal %+v last %d: want deploy 0 confirmed at contract-1", st, j.Last())
	}
}

func TestJournaledDeploymentMissingFromTheChainIsDeployedAgain(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	run := deployRun(t)
	if _, err := RunDeploy(ctx, f, run, 4, DeployConfig{}); err != nil {
		t.Fatal(err)
	}
	reset := newFakeDeployChain() // the same chain id, started afresh
	res, err := RunDeploy(ctx, reset, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusDeployed || reset.contracts() != 1 {
		t.Fatalf("on a reset chain: %+v", res)
	}
}

func TestDeploymentTheChainAllowsOnceIsReportedAndNewCannotHelp(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	f.existing, f.stageOf["0xdeployer"] = "0xdeployer", 3
	res, err := RunDeploy(ctx, f, deployRun(t), 4, DeployConfig{})
	if err != nil || res.Status != vip.StatusAlready || res.Contract != "0xdeployer" || res.InitStage != 3 {
		t.Fatalf("got %+v, %v; want already deployed at 0xdeployer stage 3", res, err)
	}
	_, err = RunDeploy(ctx, f, deployRun(t), 4, DeployConfig{New: true})
	if !errors.Is(err, vip.ErrOnePerDeployer) || !strings.Contains(err.Error(), "another deployer key") || !strings.Contains(err.Error(), "already deployed at 0xdeployer stage 3") {
		t.Fatalf("--new on a one-per-deployer chain: %v", err)
	}
	if len(f.sent) != 0 {
		t.Fatalf("sent %d txs", len(f.sent))
	}
}

func TestRefusedDeployIsDroppedAndTheRerunSendsIt(t *testing.T) {
	ctx := context.Background()
	f := newFakeDeployChain()
	f.refuse = errors.New("insufficient fees")
	run := deployRun(t)
	if _, err := RunDeploy(ctx, f, run, 4, DeployConfig{}); !push.IsRejected(err) || !strings.Contains(err.Error(), "insufficient fees") {
		t.Fatalf("refused deploy: %v", err)
	}
	f.refuse = nil
	res, err := RunDeploy(ctx, f, run, 4, DeployConfig{})
	if err != nil || res.Status != vip.StatusDeployed || f.contracts() != 1 {
		t.Fatalf("re-run after a refusal: %+v, %v", res, err)
	}
}

func TestFailedDeployTxNamesTheChainsReason(t *testing.T) {
	f := newFakeDeployChain()
	f.fail = true
	_, err := RunDeploy(context.Background(), f, deployRun(t), 4, DeployConfig{})
	if err == nil || !strings.Contains(err.Error(), "failed on chain: out of gas") {
		t.Fatalf("failed deploy: %v", err)
	}
}

func TestAddressAssignedAtInclusionIsReadFromTheTx(t *testing.T) {
	f := newFakeDeployChain()
	f.addrUnknown = true
	run := deployRun(t)
	res, err := RunDeploy(context.Background(), f, run, 4, DeployConfig{})
	if err != nil || res.Contract != "contract-0" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if filepath.Base(filepath.Dir(run.Journal)) != "_deploy" {
		t.Fatalf("deploy journal at %s", run.Journal)
	}
}

// scanningChain is a fakeDeployChain that can find a tx in its blocks without its index.
type scanningChain struct{ *fakeDeployChain }

func (c scanningChain) FindInBlocks(_ context.Context, hash string, _ time.Time) (push.Outcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mined[hash], nil
}

func TestRerunFindsADeployTheIndexLostInTheBlocks(t *testing.T) {
	f := newFakeDeployChain()
	run := deployRun(t)
	ctx, kill := context.WithCancel(context.Background())
	f.atBroadcast = func(tx push.SignedTx) { f.unindexed = map[string]bool{tx.Hash: true} }
	_, _ = RunDeploy(ctx, scanningChain{f}, run, 4, DeployConfig{Broadcasted: func(string) { kill() }})
	res, err := RunDeploy(context.Background(), scanningChain{f}, run, 4, DeployConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != vip.StatusResumed || res.Contract != "contract-0" || f.signs != 1 || f.contracts() != 1 {
		t.Fatalf("re-run %+v, signed %d, %d contracts: the unindexed deploy was sent again", res, f.signs, f.contracts())
	}
}
