// Package harness gives the e2e suites one face over every VM and engine: start a rollup
// and the L1 stand-in, open Scorers for the operator and for a stranger, make VM-valid
// addresses, and name the contract error an operation failed with. The suites never know
// which VM or engine they drive.
package harness

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/evm"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/container"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/process"
)

// Target is one VM on one engine.
type Target struct {
	VM     deployer.VM
	Engine localnet.Engine
}

func (t Target) String() string { return fmt.Sprintf("%s/%s", t.VM, t.Engine.Name()) }

var sweepOnce sync.Once

// Targets lists the VM/engine pairs to run: E2E_ENGINES (comma list of embedded, process
// and container; default "embedded") times the VMs each engine offers here. An engine that lacks
// a node binary is left out with a line on stderr, or fails the run under REQUIRE_NODES=1.
func Targets() []Target {
	names := os.Getenv("E2E_ENGINES")
	if names == "" {
		names = "embedded"
	}
	var out []Target
	for _, n := range strings.Split(names, ",") {
		switch n = strings.TrimSpace(n); n {
		case "embedded":
			out = append(out, Target{VM: deployer.EVM, Engine: embedded.Engine{}})
		case "process":
			e := process.Engine{}
			if err := e.Available(deployer.EVM); err != nil {
				if os.Getenv("REQUIRE_NODES") == "1" {
					panic(fmt.Sprintf("E2E_ENGINES has process and REQUIRE_NODES=1, but: %v", err))
				}
				fmt.Fprintf(os.Stderr, "e2e: skipping the process engine: %v\n", err)
				continue
			}
			out = append(out, Target{VM: deployer.EVM, Engine: e})
		case "container":
			e := container.Engine{}
			if err := e.Available(context.Background(), deployer.EVM); err != nil {
				if os.Getenv("REQUIRE_DOCKER") == "1" || os.Getenv("REQUIRE_NODES") == "1" {
					panic(fmt.Sprintf("E2E_ENGINES has container and REQUIRE_DOCKER=1, but: %v", err))
				}
				fmt.Fprintf(os.Stderr, "e2e: skipping the container engine: %v\n", err)
				continue
			}
			sweepOnce.Do(func() {
				if n, err := container.Sweep(context.Background()); err != nil {
					panic(err)
				} else if n > 0 {
					fmt.Fprintf(os.Stderr, "e2e: removed %d containers a previous run left\n", n)
				}
			})
			out = append(out, Target{VM: deployer.EVM, Engine: e})
		default:
			panic(fmt.Sprintf("E2E_ENGINES: unknown engine %q (want embedded, process or container)", n))
		}
	}
	return out
}

// Logs returns what the rollup's node printed, when it keeps a log (process and container
// engines), for the report of a failed spec.
func (e *Env) Logs() string {
	if l, ok := e.Rollup.(interface{ Logs() string }); ok {
		return l.Logs()
	}
	return ""
}

// Env is a running rollup with an L1 stand-in.
type Env struct {
	Target Target
	Rollup localnet.Rollup
	L1     *l1.Server
	// JournalDir is where the Scorers of this Env journal.
	JournalDir string
	operator   *ecdsa.PrivateKey
}

// Start starts the target's rollup and an L1 stand-in at l1Stage.
func Start(ctx context.Context, t Target, l1Stage uint64, journalDir string) (*Env, error) {
	r, err := t.Engine.StartRollup(ctx, t.VM)
	if err != nil {
		return nil, fmt.Errorf("start %s rollup: %w", t, err)
	}
	srv, err := l1.Start(l1.WithStage(l1Stage))
	if err != nil {
		_ = r.Stop(ctx)
		return nil, fmt.Errorf("start L1 stand-in: %w", err)
	}
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		_ = r.Stop(ctx)
		_ = srv.Close()
		return nil, fmt.Errorf("funded key: %w", err)
	}
	return &Env{Target: t, Rollup: r, L1: srv, JournalDir: journalDir, operator: key}, nil
}

// Stop stops the rollup and the L1 stand-in.
func (e *Env) Stop(ctx context.Context) error {
	return errors.Join(e.L1.Close(), e.Rollup.Stop(ctx))
}

// Scorer opens a Scorer signing with the funded operator key, attached to contract if set.
func (e *Env) Scorer(ctx context.Context, contract string, extra ...evm.Option) (deployer.Scorer, error) {
	return e.scorerWith(ctx, e.operator, contract, extra...)
}

// Stranger opens a Scorer on contract whose key is not on its allow list.
func (e *Env) Stranger(ctx context.Context, contract string) (deployer.Scorer, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return e.scorerWith(ctx, k, contract)
}

func (e *Env) scorerWith(ctx context.Context, key *ecdsa.PrivateKey, contract string, extra ...evm.Option) (deployer.Scorer, error) {
	switch e.Target.VM {
	case deployer.EVM:
		opts := []evm.Option{evm.WithOperatorKey(key), evm.WithJournalDir(e.JournalDir)}
		if contract != "" {
			opts = append(opts, evm.WithContract(common.HexToAddress(contract)))
		}
		return evm.Dial(ctx, e.Rollup.Endpoints().JSONRPC, append(opts, extra...)...)
	}
	return nil, fmt.Errorf("no scorer for %s", e.Target)
}

// Generate makes n distinct, VM-valid score entries, deterministic in seed.
func (e *Env) Generate(n int, seed int64) []scores.Entry {
	return scores.Generate(n, seed)
}

// ContractError names the contract error behind err ("StageFinalized", "PermissionDenied",
// ...), or "" when err carries none.
func ContractError(err error) string {
	var re *evm.RevertError
	if errors.As(err, &re) {
		return re.Name
	}
	return ""
}

// Expected maps a failure the suites provoke to the contract error each VM must give.
var Expected = map[deployer.VM]map[string]string{
	deployer.EVM: {
		"not allowed":     "PermissionDenied",
		"finalized":       "StageFinalized",
		"missing stage":   "StageNotFound",
		"length mismatch": "AddrsAndAmountsLengthMistmatch",
	},
}

// OperatorSequence is how many txs the operator has had included, to prove that a
// rejected input sent nothing.
func (e *Env) OperatorSequence(ctx context.Context) (uint64, error) {
	switch e.Target.VM {
	case deployer.EVM:
		c, err := ethclient.DialContext(ctx, e.Rollup.Endpoints().JSONRPC)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return c.PendingNonceAt(ctx, crypto.PubkeyToAddress(e.operator.PublicKey))
	}
	return 0, fmt.Errorf("no sequence for %s", e.Target)
}

// CallMismatched simulates updateScores with two addresses and one score, which only a
// hand-made message can carry (the deployer never builds one), and returns the error.
func (e *Env) CallMismatched(ctx context.Context, contract string, stage uint64) error {
	switch e.Target.VM {
	case deployer.EVM:
		c, err := ethclient.DialContext(ctx, e.Rollup.Endpoints().JSONRPC)
		if err != nil {
			return err
		}
		defer c.Close()
		b := vipscore.NewVipScore()
		data := b.PackUpdateScores(stage, []common.Address{common.HexToAddress("0x1111111111111111111111111111111111111111"), common.HexToAddress("0x2222222222222222222222222222222222222222")}, []uint64{1})
		to := common.HexToAddress(contract)
		_, err = c.CallContract(ctx, ethereum.CallMsg{From: crypto.PubkeyToAddress(e.operator.PublicKey), To: &to, Data: data}, nil)
		return evm.DecodeRevert(err)
	}
	return fmt.Errorf("no mismatched call for %s", e.Target)
}
