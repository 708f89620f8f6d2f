// Package harness gives the e2e suites one face over every VM and engine: start a rollup
// and the L1 stand-in, open Scorers for the operator and for a stranger, make VM-valid
// addresses, and name the contract error an operation failed with. The suites never know
// which VM or engine they drive.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/onsi/ginkgo/v2"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/conformance"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/chain"
	"github.com/vipharness/vipharness/localnet/container"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/external"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/minitiad"
	"github.com/vipharness/vipharness/localnet/movevm"
	"github.com/vipharness/vipharness/localnet/process"
)

// SuiteReadLag is the read lag the suites give the embedded EVM (embedded.ReadLagEnv),
// unless the environment sets one (0 turns it off): for that long after each block, state
// reads at "latest" see the state before it, as a minievm's can right after a receipt (its
// EVM indexer answers before the state commits; measured on v1.2.18: 4 of 15 reads made as
// soon as the receipt showed saw the old state, for 5 to 14 ms). Every client the suites
// drive (vipctl, Foundry, ethers, viem, the SDKs) meets it there, so each must wait for the
// state a receipt promises, as it must on a real minievm.
const SuiteReadLag = "20ms"

func init() {
	if _, set := os.LookupEnv(embedded.ReadLagEnv); !set {
		_ = os.Setenv(embedded.ReadLagEnv, SuiteReadLag)
	}
}

// Target is one VM on one engine.
type Target struct {
	VM     vip.VM
	Engine localnet.Engine
}

func (t Target) String() string { return fmt.Sprintf("%s/%s", t.VM, t.Engine.Name()) }

// harnessVMs are the VMs the embedded engine runs, in run order (the process and container
// engines list theirs with the node each runs).
var harnessVMs = []vip.VM{vip.EVM, vip.Wasm, vip.Move}

// engineNames are the engines Targets knows.
var engineNames = []string{"embedded", "embedded-geth", "process", "container", "external", "minitia", "minitia-image"}

// Targets lists the VM/engine pairs to build specs for: the engines named in E2E_ENGINES
// (comma list of embedded, embedded-geth, process, container, external, minitia and minitia-image), else the engines the Ginkgo label
// filter names (so `--label-filter=process` alone selects the process engine), else
// embedded; times the VMs each engine offers. It only builds the list: whether a target can
// run here is decided when its specs start (Start skips, or fails under REQUIRE_*), so a
// missing node binary never breaks the building of the spec tree, and each target keeps
// its labels.
func Targets() []Target {
	names := os.Getenv("E2E_ENGINES")
	if names == "" {
		names = "embedded"
		if filter := ginkgo.GinkgoLabelFilter(); filter != "" {
			var named []string
			for _, n := range engineNames {
				if namesEngine(filter, n) && !namesEngine(filter, "!"+n) {
					named = append(named, n)
				}
			}
			if len(named) > 0 {
				names = strings.Join(named, ",")
			}
		}
	}
	var out []Target
	for _, n := range strings.Split(names, ",") {
		switch n = strings.TrimSpace(n); n {
		case "embedded":
			for _, vm := range harnessVMs {
				out = append(out, Target{VM: vm, Engine: embedded.Engine{}})
			}
		case "embedded-geth":
			// The EVM rollup on go-ethereum's simulated chain, with stand-in Cosmos faces.
			out = append(out, Target{VM: vip.EVM, Engine: embedded.Engine{EVMOnGeth: true}})
		case "process":
			out = append(out, Target{vip.EVM, process.Engine{}}, Target{vip.EVM, process.Engine{Node: process.DevNode}},
				Target{vip.Wasm, process.Engine{}}, Target{vip.Wasm, process.Engine{Node: process.DevNode}}, Target{vip.Move, process.Engine{}})
		case "container":
			out = append(out, Target{vip.EVM, container.Engine{}}, Target{vip.EVM, container.Engine{Node: process.DevNode}},
				Target{vip.Wasm, container.Engine{}}, Target{vip.Wasm, container.Engine{Node: process.DevNode}}, Target{vip.Move, container.Engine{}})
		case "minitia":
			// Initia's own minitiad binaries, where they are here (localnet/minitiad).
			for _, vm := range harnessVMs {
				out = append(out, Target{VM: vm, Engine: minitiad.Engine{}})
			}
		case "minitia-image":
			// The same rollups from images, every minitiad command in a container:
			// VIPHARNESS_MINI<VM>_IMAGE, else the VM's minitiad packaged into a local image.
			for _, vm := range harnessVMs {
				out = append(out, Target{VM: vm, Engine: minitiad.Engine{Containers: true}})
			}
		case "external":
			// The rollup someone else runs, from the environment (localnet/external).
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			vms, err := external.Engine{}.VMs(ctx)
			cancel()
			switch {
			case err != nil:
				out = append(out, Target{VM: vip.EVM, Engine: brokenEngine{"external", err}})
			case len(vms) == 0:
				out = append(out, Target{VM: vip.EVM, Engine: brokenEngine{"external", errors.New("E2E_ENGINES has external, but no rollup is set: JSON_RPC_URL, or COMET_RPC_URL and REST_URL")}})
			}
			for _, vm := range vms {
				out = append(out, Target{VM: vm, Engine: external.Engine{}})
			}
		default:
			// Reported when its specs start, not here: building the tree must not panic.
			out = append(out, Target{VM: vip.EVM, Engine: unknownEngine(n)})
		}
	}
	return out
}

// namesEngine reports whether a label filter names the engine n ("!n" for its negation):
// a word of the filter that is n, or a variant of it that is no engine of its own
// ("container-devnode" names container; "minitia-image" does not name minitia).
func namesEngine(filter, n string) bool {
	neg := strings.HasPrefix(n, "!")
	n = strings.TrimPrefix(n, "!")
	words := strings.FieldsFunc(filter, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '!' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	for _, w := range words {
		if strings.HasPrefix(w, "!") != neg {
			continue
		}
		w = strings.TrimPrefix(w, "!")
		if w == n || strings.HasPrefix(w, n+"-") && !slices.Contains(engineNames, w) {
			return true
		}
	}
	return false
}

// unknownEngine is an E2E_ENGINES entry that names no engine; its specs fail.
type unknownEngine string

func (e unknownEngine) Name() string { return string(e) }
func (e unknownEngine) Available(context.Context, vip.VM) error {
	return fmt.Errorf("E2E_ENGINES: unknown engine %q (want %s)", string(e), strings.Join(engineNames, ", "))
}
func (e unknownEngine) StartRollup(ctx context.Context, vm vip.VM) (localnet.Rollup, error) {
	return nil, e.Available(ctx, vm)
}

// brokenEngine is an engine that cannot even be listed (its error); its specs fail.
type brokenEngine struct {
	name string
	err  error
}

func (e brokenEngine) Name() string                            { return e.name }
func (e brokenEngine) Available(context.Context, vip.VM) error { return e.err }
func (e brokenEngine) StartRollup(context.Context, vip.VM) (localnet.Rollup, error) {
	return nil, e.err
}

// Required reports whether the environment demands the engine run (REQUIRE_NODES=1 for the
// process and container engines, REQUIRE_DOCKER=1 for the container engine), so that a
// missing prerequisite fails instead of skipping.
func Required(engine string) bool {
	nodes := os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true"
	switch {
	case strings.HasPrefix(engine, "process"):
		return nodes
	case strings.HasPrefix(engine, "container"):
		return nodes || os.Getenv("REQUIRE_DOCKER") == "1"
	case strings.HasPrefix(engine, "minitia"):
		// Initia's binaries are a team's own (nothing here builds them): required only when
		// asked for.
		return os.Getenv("REQUIRE_MINITIA") == "1"
	}
	// The embedded engine (its Move rollup needs Initia's library) and an unknown engine
	// always fail, as before.
	return true
}

var sweepOnce sync.Once

// ensure skips the running spec (or its Ordered container, from BeforeAll) when the target
// cannot run here, or fails it when required; for the container engine it first removes
// what earlier runs left behind.
func ensure(ctx context.Context, t Target) error {
	if err := t.Engine.Available(ctx, t.VM); err != nil {
		if Required(t.Engine.Name()) {
			return fmt.Errorf("%s cannot run here and is required: %w", t, err)
		}
		ginkgo.Skip(fmt.Sprintf("%s: %v", t, err))
	}
	if _, ok := t.Engine.(container.Engine); ok || t.Engine.Name() == "minitia-image" {
		var err error
		sweepOnce.Do(func() {
			var n int
			if n, err = container.Sweep(ctx); n > 0 {
				fmt.Fprintf(ginkgo.GinkgoWriter, "e2e: removed %d containers a previous run left\n", n)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Env is a running rollup with an L1 stand-in.
type Env struct {
	Target Target
	Rollup localnet.Rollup
	L1     *l1.Server
	// JournalDir is where the Scorers of this Env journal.
	JournalDir string
	// operator and stranger are funded keys (32-byte secrets); the stranger is never put on
	// an allow list.
	operator, stranger []byte
	// Chain is the rollup's plumbing (height, sequences, funding), dialed once; chain is its
	// Cosmos client on a Move or Wasm rollup (nil on EVM).
	Chain *chain.Chain
	chain *cosmostx.Client
}

// Start starts the target's rollup and an L1 stand-in at l1Stage. Called from a spec or
// BeforeAll, it skips them when the target cannot run here (Engine.Available), or fails them
// when the environment requires the engine (REQUIRE_NODES=1, REQUIRE_DOCKER=1).
// l1Opts configure the L1 stand-in further (bridges registered at genesis, funded users).
func Start(ctx context.Context, t Target, l1Stage uint64, journalDir string, l1Opts ...l1.Option) (_ *Env, err error) {
	if err := ensure(ctx, t); err != nil {
		return nil, err
	}
	r, err := t.Engine.StartRollup(ctx, t.VM)
	if err != nil {
		return nil, fmt.Errorf("start %s rollup: %w", t, err)
	}
	defer func() {
		if err != nil {
			_ = r.Stop(ctx)
		}
	}()
	funded := r.Funded()
	if len(funded) < 1 {
		return nil, fmt.Errorf("%s rollup funds no account", t)
	}
	e := &Env{Target: t, Rollup: r, JournalDir: journalDir}
	if e.operator, err = hex.DecodeString(funded[0].PrivateKey); err != nil {
		return nil, fmt.Errorf("funded key: %w", err)
	}
	if e.Chain, err = chain.Dial(ctx, r); err != nil {
		return nil, fmt.Errorf("dial %s rollup: %w", t, err)
	}
	e.chain = e.Chain.Cosmos()
	_, shared := t.Engine.(external.Engine)
	switch {
	case shared:
		// A shared, long-lived chain that other suites may use at the same time: this Env's
		// operator and stranger are fresh accounts funded by the environment's key, so the
		// sequences it counts are its own (and on Move, an account holds one vip_score
		// module); the stranger gets what a few refused simulations cost.
		spec := e.Chain.Spec()
		if e.operator, err = e.freshAccount(ctx, spec.Gas.Fixed*100+spec.Gas.PerAddress*90_000); err == nil {
			e.stranger, err = e.freshAccount(ctx, 2_000_000)
		}
	case len(funded) > 1:
		e.stranger, err = hex.DecodeString(funded[1].PrivateKey)
	default:
		// One funded account: the stranger is a fresh key with what a few refused
		// simulations cost (a Cosmos chain simulates only for an existing account).
		e.stranger, err = e.freshAccount(ctx, 2_000_000)
	}
	if err != nil {
		return nil, fmt.Errorf("stranger key: %w", err)
	}
	if e.L1, err = l1.Start(ctx, append([]l1.Option{l1.WithStage(l1Stage)}, l1Opts...)...); err != nil {
		return nil, fmt.Errorf("start L1 stand-in: %w", err)
	}
	return e, nil
}

// Stop stops the rollup and the L1 stand-in.
func (e *Env) Stop(ctx context.Context) error {
	e.Chain.Close()
	return errors.Join(e.L1.Close(), e.Rollup.Stop(ctx))
}

// Logs returns what the rollup's node printed, when it keeps a log (process and container
// engines), for the report of a failed spec.
func (e *Env) Logs() string {
	if l, ok := e.Rollup.(localnet.Logged); ok {
		return l.Logs()
	}
	return ""
}

// FailureLogs are the node's log for a failed spec: where the node can say where its
// goroutines wait (localnet.Dumper), it does so and stops; else its log.
func (e *Env) FailureLogs() string {
	if d, ok := e.Rollup.(localnet.Dumper); ok {
		return d.Dump()
	}
	return e.Logs()
}

// Knob tunes a Scorer's push the same way on every VM.
type Knob func(*deployer.PushConfig)

// ChunkSize fixes the entries per update tx.
func ChunkSize(n int) Knob { return func(p *deployer.PushConfig) { p.ChunkSize = n } }

// Window sets how many update txs may be in flight.
func Window(n int) Knob { return func(p *deployer.PushConfig) { p.Window = n } }

// Progress reports confirmed entries during an update.
func Progress(f func(done, total int)) Knob { return func(p *deployer.PushConfig) { p.Progress = f } }

// Scorer opens a Scorer signing with the funded operator key, attached to contract if set.
func (e *Env) Scorer(ctx context.Context, contract string, k ...Knob) (*deployer.Scorer, error) {
	return e.scorerWith(ctx, e.operator, nil, contract, k...)
}

// Stranger opens a Scorer on contract whose (funded) key is not on its allow list.
func (e *Env) Stranger(ctx context.Context, contract string) (*deployer.Scorer, error) {
	return e.scorerWith(ctx, e.stranger, nil, contract)
}

// scorerWith opens a Scorer signing with secret, or with signer when it is set.
func (e *Env) scorerWith(ctx context.Context, secret []byte, signer keys.Signer, contract string, ks ...Knob) (*deployer.Scorer, error) {
	push := deployer.PushConfig{JournalDir: e.JournalDir}
	for _, f := range ks {
		f(&push)
	}
	if signer == nil && secret != nil {
		var err error
		if signer, err = deployer.SoftSigner(e.Target.VM, e.KeyType(), secret, "operator"); err != nil {
			return nil, err
		}
	}
	ep := e.Rollup.Endpoints()
	// The rollups fund fresh accounts: a Move deployer compiles vip_score for its address
	// (the library opens on a Move deploy only); key types matter on Cosmos rollups only.
	return deployer.Open(ctx, deployer.Config{
		VM: e.Target.VM, JSONRPC: ep.JSONRPC, CometRPC: ep.CometRPC, REST: ep.REST,
		Operator: signer, Contract: contract, Push: push,
		Move: deployer.MoveConfig{Build: move.Builder(movevm.LazyCompiler(movevm.Dir()))},
	})
}

// Generate makes n distinct, VM-valid score entries, deterministic in seed.
func (e *Env) Generate(n int, seed int64) []scores.Entry {
	if e.chain != nil {
		return scores.GenerateBech32(n, seed, e.chain.Prefix())
	}
	return scores.Generate(n, seed)
}

// ScoreFile is the path of a fixture score file (fixtures/scores/<name>) in the VM's address
// form: for a Cosmos VM, a copy in dir with every 0x address written as bech32 of the same
// bytes, and an address with a broken EIP-55 checksum as bech32 with a broken checksum, so
// each fixture keeps its meaning.
func (e *Env) ScoreFile(dir, name string) (string, error) {
	src := filepath.Join(fixturesDir(), "scores", name)
	if e.chain == nil {
		return src, nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	var convErr error
	out := hexAddress.ReplaceAllStringFunc(string(data), func(a string) string {
		raw, err := hex.DecodeString(a[2:])
		if err != nil {
			convErr = err
			return a
		}
		b32, err := bech32.ConvertAndEncode(e.chain.Prefix(), raw)
		if err != nil {
			convErr = err
			return a
		}
		if _, err := scores.CheckEVMAddress(a); err != nil && strings.Contains(err.Error(), "checksum") {
			last := b32[len(b32)-1]
			b32 = b32[:len(b32)-1] + map[bool]string{true: "p", false: "q"}[last == 'q']
		}
		return b32
	})
	if convErr != nil {
		return "", fmt.Errorf("convert %s: %w", name, convErr)
	}
	dst := filepath.Join(dir, name)
	return dst, os.WriteFile(dst, []byte(out), 0o600)
}

var hexAddress = regexp.MustCompile(`0[xX][0-9a-fA-F]{40}`)

// fixturesDir is the repository's fixtures folder, found from this source file.
func fixturesDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
}

// ContractError names the contract error behind err ("StageFinalized" on EVM, "Stage
// finalized" on Wasm, ...), or "" when err carries none.
func ContractError(err error) string { return vip.Reason(err) }

// Expected maps a failure the suites provoke to the contract error each VM must give: the
// official names the conformance checks hold, and how our own contracts refuse a
// re-finalize (vip.Spec.Reasons). A failure a VM's messages cannot express has no entry.
var Expected = func() map[vip.VM]map[string]string {
	out := map[vip.VM]map[string]string{}
	for _, vm := range vip.VMs {
		out[vm] = vip.MustDescribe(vm).Reasons
	}
	return out
}()

// freshAccount makes a key and funds it from the rollup's funded key with what gas costs.
func (e *Env) freshAccount(ctx context.Context, gas uint64) ([]byte, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	to, err := keys.NewSoftware(mustAccount(secret), e.KeyType(), "fresh")
	if err != nil {
		return nil, err
	}
	if err := e.fund(ctx, to, gas); err != nil {
		return nil, fmt.Errorf("fund a fresh account: %w", err)
	}
	return secret, nil
}

// OperatorSequence is how many txs the operator has had included, to prove that a
// rejected input sent nothing.
func (e *Env) OperatorSequence(ctx context.Context) (uint64, error) {
	op, err := e.signer(e.operator)
	if err != nil {
		return 0, err
	}
	addr, err := e.Chain.Address(op)
	if err != nil {
		return 0, err
	}
	return e.Chain.Sequence(ctx, addr)
}

// CallMismatched simulates updateScores with two addresses and one score, which only a
// hand-made message can carry (the deployer never builds one), and returns the error; the
// VM's Scorer makes that message (SimulateMismatch), as for the conformance checks.
func (e *Env) CallMismatched(ctx context.Context, contract string, stage uint64) error {
	s, err := e.Scorer(ctx, contract)
	if err != nil {
		return err
	}
	mismatch := conformance.SubjectFor(s, nil).Mismatch
	if mismatch == nil {
		return fmt.Errorf("no mismatched call for %s", e.Target)
	}
	return mismatch(ctx, stage)
}
