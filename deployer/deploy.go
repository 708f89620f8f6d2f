package deployer

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/vip"
)

// DeployChain is what one VM offers the shared deploy flow (RunDeploy): the deployer's
// sequences, a signed deploy tx, broadcast and lookup by hash, and read-only probes of what
// a deployment left on the chain. Implementations live in deployer/vm/evm, deployer/vm/move and
// deployer/vm/wasm. A DeployChain that is a push.PoolChecker is asked whether its node holds an
// unmined tx, and one that is a push.BlockScanner looks for it in the blocks, before that
// tx is given up.
type DeployChain interface {
	// Sequence is the next sequence (nonce) the chain accepts from the deployer.
	Sequence(ctx context.Context) (uint64, error)
	// Committed is the deployer's sequence in the latest block: every lower one is spent.
	Committed(ctx context.Context) (uint64, error)
	// SignDeploy builds (simulating it, which proves it would succeed) and signs the deploy
	// of the contract with stage as its first stage at seq; it sends nothing. contract is
	// the address the tx creates, or "" where the chain assigns it at inclusion.
	SignDeploy(ctx context.Context, stage, seq uint64) (tx push.SignedTx, contract string, err error)
	// Broadcast hands a signed tx to the node (push.Chain's contract: a refusal is
	// push.Rejected, a tx the node already holds is no error).
	Broadcast(ctx context.Context, tx push.SignedTx) error
	Lookup(ctx context.Context, hash string) (push.Outcome, error)
	// Created is the contract the included deploy tx hash created.
	Created(ctx context.Context, hash string) (string, error)
	// Probe checks, read only, that addr holds a scoring contract that speaks the official
	// interface, and returns its first stage.
	Probe(ctx context.Context, addr string) (initStage uint64, err error)
	// Existing is a deployment the chain allows only once per deployer (Move: the module
	// under the deployer's address), whether or not a journal knows it; "" when there is
	// none or the VM has no such rule.
	Existing(ctx context.Context) (string, error)
}

// createdAwaiter is a DeployChain whose node can answer a receipt before its state shows
// the contract the tx created (minievm): a deploy whose address was known before it was
// sent counts as done once the state shows it, as one that Created reads does.
type createdAwaiter interface {
	AwaitCreated(ctx context.Context, contract string) error
}

// Deploying is a VM's side of a deploy (Contract.DeployChain): the deployer's address as the
// VM writes it (it names the deploy's journal), and the chain RunDeploy drives.
type Deploying struct {
	Deployer string
	Chain    DeployChain
}

// DeployNoter is a DeployChain that adds what only its VM knows to a finished deployment
// (Wasm: the code id instantiated and the gas of a store this run made).
type DeployNoter interface {
	NoteDeployment(ctx context.Context, d *vip.Deployment) error
}

// DeployPreparer is a DeployChain with a step of its own before the deploy tx is signed,
// one that is safe to repeat and found by a re-run on its own (Wasm: store the code unless
// code with its checksum is stored already). It runs only when a deploy is to be signed.
type DeployPreparer interface {
	PrepareDeploy(ctx context.Context) error
}

// DeployOption configures a deploy.
type DeployOption func(*DeployConfig)

// DeployConfig is what DeployOptions set.
type DeployConfig struct {
	// New deploys another contract although this deployer has a healthy one.
	New bool
	// Broadcasted, when set, is called right after a deploy tx this run signed is handed
	// to the node, before its outcome is known (crash tests stop the process there).
	Broadcasted func(hash string)
}

// AnotherDeployment deploys a new contract even when the deployer already has a healthy
// deployment on the chain (vipctl deploy --new). A deploy an earlier run sent is still
// finished first, and reported, instead.
func AnotherDeployment() DeployOption { return func(c *DeployConfig) { c.New = true } }

// OnBroadcast calls f with the hash of the deploy tx right after it is handed to the node,
// before its outcome is known or recorded.
func OnBroadcast(f func(hash string)) DeployOption {
	return func(c *DeployConfig) { c.Broadcasted = f }
}

// DeployConfigOf applies opts.
func DeployConfigOf(opts ...DeployOption) DeployConfig {
	var c DeployConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// DeployRun is how RunDeploy runs: where its journal is, how it polls, what it logs.
type DeployRun struct {
	Journal string // journal.DeployPath of the chain and deployer
	Poll    time.Duration
	// ResendAfter is how long a sent tx may be unknown to the node before the same bytes
	// are sent again (default 3s).
	ResendAfter time.Duration
	Logger      *slog.Logger
}

// DeployResult is what RunDeploy did.
type DeployResult struct {
	Status    string
	Contract  string
	InitStage uint64
	TxHash    string
	GasUsed   uint64
}

// RunDeploy deploys the contract with stage as its first stage, journaled and retry-safe
// on every VM:
//   - the signed deploy tx, with the address it creates where the VM knows it, is fsynced
//     to the journal before it is broadcast;
//   - a deploy an earlier run journaled is reconciled by hash: found on the chain or still
//     in the pool, it is waited for and recorded; never seen and its sequence unspent, the
//     same bytes go out again; its sequence spent by another tx, it is dropped and signed
//     anew. A deploy is never sent twice;
//   - a deployer whose last deployment is healthy (Probe) is told so (StatusAlready) and
//     nothing is sent, unless cfg.New; a deployment the chain allows once (Existing) is
//     reported the same way, and cfg.New then fails with ErrOnePerDeployer.
func RunDeploy(ctx context.Context, chain DeployChain, run DeployRun, stage uint64, cfg DeployConfig) (DeployResult, error) {
	if stage == 0 {
		return DeployResult{}, errors.New("deploy: initial stage must be at least 1")
	}
	if run.Poll <= 0 {
		run.Poll = push.DefaultPoll
	}
	if run.ResendAfter <= 0 {
		run.ResendAfter = 3 * time.Second
	}
	if run.Logger == nil {
		run.Logger = slog.New(slog.DiscardHandler)
	}
	j, err := journal.Open(run.Journal)
	if err != nil {
		return DeployResult{}, fmt.Errorf("deploy: %w", err)
	}
	defer j.Close()
	d := &deploying{chain: chain, run: run, j: j, broadcasted: cfg.Broadcasted}
	if _, ok := j.Begin(); !ok {
		if err := j.Append(journal.Record{Op: journal.OpBegin, Input: "deploy"}); err != nil {
			return DeployResult{}, fmt.Errorf("deploy: %w", err)
		}
	}
	n := j.Last()
	if n >= 0 {
		st := j.Chunk(n)
		switch {
		case len(st.Attempts) > 0:
			res, done, err := d.reconcile(ctx, n)
			if err != nil || done {
				return res, err
			}
			// Every attempt was dropped: deploy number n is signed anew below.
		case st.Confirmed:
			init, perr := chain.Probe(ctx, st.Contract)
			if perr == nil && !cfg.New {
				run.Logger.Info("already deployed", "contract", st.Contract, "stage", init)
				return DeployResult{Status: vip.StatusAlready, Contract: st.Contract, InitStage: init, TxHash: st.Hash, GasUsed: st.GasUsed}, nil
			}
			if perr != nil {
				// A chain that was reset, or a contract since removed: deploy again.
				run.Logger.Info("the journaled deployment is not on this chain; deploying anew", "contract", st.Contract, "reason", perr.Error())
			}
			n++
		default: // the last attempt failed on chain or was refused: its number is free
		}
	}
	n = max(n, 0)
	existing, err := chain.Existing(ctx)
	if err != nil {
		return DeployResult{}, fmt.Errorf("deploy: look for an existing deployment: %w", err)
	}
	if existing != "" {
		init, perr := chain.Probe(ctx, existing)
		if perr != nil {
			return DeployResult{}, fmt.Errorf("deploy: %w: %s holds a deployment that is not a healthy scoring contract (%v); use another deployer key", vip.ErrOnePerDeployer, existing, perr)
		}
		if cfg.New {
			return DeployResult{}, fmt.Errorf("deploy: already deployed at %s stage %d, and %w: another deploy needs another deployer key", existing, init, vip.ErrOnePerDeployer)
		}
		return DeployResult{Status: vip.StatusAlready, Contract: existing, InitStage: init}, nil
	}
	return d.send(ctx, n, stage)
}

type deploying struct {
	chain       DeployChain
	run         DeployRun
	j           *journal.Journal
	broadcasted func(hash string)
}

// reconcile settles deploy n's journaled attempts, newest first. done is false when every
// attempt was dropped (its sequence went to another tx), so the deploy is to be signed anew.
func (d *deploying) reconcile(ctx context.Context, n int) (DeployResult, bool, error) {
	st := d.j.Chunk(n)
	for k := len(st.Attempts) - 1; k >= 0; k-- {
		a := st.Attempts[k]
		out, err := d.chain.Lookup(ctx, a.Hash)
		if err != nil {
			return DeployResult{}, false, fmt.Errorf("deploy: look up the earlier deploy tx %s: %w", a.Hash, err)
		}
		if !out.Found && !out.Pending {
			held, err := d.inPool(ctx, a.Hash)
			if err != nil {
				return DeployResult{}, false, fmt.Errorf("deploy: look up the earlier deploy tx %s: %w", a.Hash, err)
			}
			if !held {
				committed, err := d.chain.Committed(ctx)
				if err != nil {
					return DeployResult{}, false, fmt.Errorf("deploy: read the deployer's sequence: %w", err)
				}
				if a.Sequence < committed {
					// Spent: by this tx if a second look finds it (it may have landed since
					// the first), else by another, and this one can never land.
					if out, err = d.find(ctx, a); err != nil {
						return DeployResult{}, false, fmt.Errorf("deploy: look up the earlier deploy tx %s: %w", a.Hash, err)
					}
					if !out.Found {
						d.run.Logger.Info("an earlier deploy tx can never land (its sequence went to another tx)", "tx", a.Hash, "sequence", a.Sequence)
						if err := d.j.Append(journal.Record{Op: journal.OpDropped, Chunk: n, Hash: a.Hash, Sequence: a.Sequence}); err != nil {
							return DeployResult{}, false, fmt.Errorf("deploy: %w", err)
						}
						continue
					}
				} else {
					// Never seen and its sequence free: the same bytes go out again.
					raw, err := hex.DecodeString(a.Raw)
					if err != nil {
						return DeployResult{}, false, fmt.Errorf("deploy: journaled tx %s is not hex: %w", a.Hash, err)
					}
					d.run.Logger.Info("the node does not know an earlier deploy tx; sending the same bytes again", "tx", a.Hash)
					if err := d.chain.Broadcast(ctx, push.SignedTx{Hash: a.Hash, Raw: raw, Sequence: a.Sequence}); err != nil {
						if push.IsRejected(err) {
							// It may have landed in the meantime; else the next run drops it.
							if out, lerr := d.chain.Lookup(ctx, a.Hash); lerr == nil && out.Found {
								res, err := d.settle(ctx, n, a, out, vip.StatusResumed)
								return res, true, err
							}
						}
						return DeployResult{}, false, fmt.Errorf("deploy: re-broadcast the earlier deploy tx %s: %w", a.Hash, err)
					}
				}
			}
		}
		d.run.Logger.Info("finishing the deploy an earlier run sent", "tx", a.Hash, "contract", a.Contract)
		if out.Found {
			res, err := d.settle(ctx, n, a, out, vip.StatusResumed)
			return res, true, err
		}
		res, err := d.wait(ctx, n, a, vip.StatusResumed)
		return res, true, err
	}
	return DeployResult{}, false, nil
}

// send signs deploy n at the deployer's next sequence, journals it (synced), broadcasts it
// and waits for it.
func (d *deploying) send(ctx context.Context, n int, stage uint64) (DeployResult, error) {
	if p, ok := d.chain.(DeployPreparer); ok {
		if err := p.PrepareDeploy(ctx); err != nil {
			return DeployResult{}, fmt.Errorf("deploy at stage %d: %w", stage, err)
		}
	}
	seq, err := d.chain.Sequence(ctx)
	if err != nil {
		return DeployResult{}, fmt.Errorf("deploy: read the deployer's sequence: %w", err)
	}
	tx, contract, err := d.chain.SignDeploy(ctx, stage, seq)
	if err != nil {
		return DeployResult{}, fmt.Errorf("deploy at stage %d: %w", stage, err)
	}
	rec := journal.Record{Op: journal.OpSigned, Time: time.Now().UTC(), Chunk: n, Stage: stage, Sequence: seq,
		Hash: tx.Hash, Raw: hex.EncodeToString(tx.Raw), Contract: contract}
	if err := d.j.Append(rec); err != nil {
		return DeployResult{}, fmt.Errorf("deploy: nothing sent: %w", err)
	}
	if err := d.chain.Broadcast(ctx, tx); err != nil {
		if push.IsRejected(err) {
			if jerr := d.j.Append(journal.Record{Op: journal.OpDropped, Chunk: n, Hash: tx.Hash, Sequence: seq, Error: err.Error()}); jerr != nil {
				return DeployResult{}, fmt.Errorf("deploy at stage %d: broadcast: %w (and journaling the refusal failed: %w)", stage, err, jerr)
			}
			return DeployResult{}, fmt.Errorf("deploy at stage %d: broadcast: %w", stage, err)
		}
		// Unknown whether the node got it: wait looks it up and resends the same bytes.
		d.run.Logger.Warn("deploy broadcast failed; will look the tx up and resend it", "tx", tx.Hash, "err", err)
	}
	d.run.Logger.Info("deploy tx broadcast", "tx", tx.Hash, "contract", contract, "stage", stage)
	if d.broadcasted != nil {
		d.broadcasted(tx.Hash)
	}
	return d.wait(ctx, n, rec, vip.StatusDeployed)
}

// wait polls deploy n's tx a until it is included, handing the same bytes to the node
// again when it has not seen them for ResendAfter.
func (d *deploying) wait(ctx context.Context, n int, a journal.Record, status string) (DeployResult, error) {
	sent := time.Now()
	for {
		out, err := d.chain.Lookup(ctx, a.Hash)
		if err != nil {
			return DeployResult{}, fmt.Errorf("deploy: wait for tx %s: %w", a.Hash, err)
		}
		if out.Found {
			return d.settle(ctx, n, a, out, status)
		}
		if !out.Pending && time.Since(sent) > d.run.ResendAfter {
			if held, err := d.inPool(ctx, a.Hash); err != nil || !held {
				raw, err := hex.DecodeString(a.Raw)
				if err != nil {
					return DeployResult{}, fmt.Errorf("deploy: journaled tx %s is not hex: %w", a.Hash, err)
				}
				if err := d.chain.Broadcast(ctx, push.SignedTx{Hash: a.Hash, Raw: raw, Sequence: a.Sequence}); err != nil && push.IsRejected(err) {
					// Refused: it may have landed since the lookup, or unindexed.
					if out, lerr := d.find(ctx, a); lerr == nil && out.Found {
						return d.settle(ctx, n, a, out, status)
					}
					return DeployResult{}, fmt.Errorf("deploy: resend tx %s: %w (run deploy again to reconcile)", a.Hash, err)
				}
			}
			sent = time.Now()
		}
		select {
		case <-ctx.Done():
			return DeployResult{}, fmt.Errorf("deploy: wait for tx %s: %w (run deploy again to finish it)", a.Hash, ctx.Err())
		case <-time.After(d.run.Poll):
		}
	}
}

// settle records deploy n's included tx a.
func (d *deploying) settle(ctx context.Context, n int, a journal.Record, out push.Outcome, status string) (DeployResult, error) {
	if !out.Success {
		reason := "failed"
		if out.Err != nil {
			reason = out.Err.Error()
		}
		if err := d.j.Append(journal.Record{Op: journal.OpFailed, Chunk: n, Hash: a.Hash, Error: reason, Height: out.Height}); err != nil {
			return DeployResult{}, fmt.Errorf("deploy: %w", err)
		}
		return DeployResult{}, fmt.Errorf("deploy at stage %d: tx %s failed on chain: %w", a.Stage, a.Hash, errOr(out.Err))
	}
	contract := a.Contract
	if contract == "" {
		c, err := d.chain.Created(ctx, a.Hash)
		if err != nil {
			return DeployResult{}, fmt.Errorf("deploy: tx %s landed; read the contract it created: %w (run deploy again to record it)", a.Hash, err)
		}
		contract = c
	} else if w, ok := d.chain.(createdAwaiter); ok {
		if err := w.AwaitCreated(ctx, contract); err != nil {
			return DeployResult{}, fmt.Errorf("deploy: tx %s landed; %w (run deploy again to record it)", a.Hash, err)
		}
	}
	if err := d.j.Append(journal.Record{Op: journal.OpConfirmed, Chunk: n, Hash: a.Hash, GasUsed: out.GasUsed, Height: out.Height, Contract: contract}); err != nil {
		return DeployResult{}, fmt.Errorf("deploy: %w", err)
	}
	return DeployResult{Status: status, Contract: contract, InitStage: a.Stage, TxHash: a.Hash, GasUsed: out.GasUsed}, nil
}

// find looks a tx up by hash and, not found there, in the blocks since it was signed where
// the chain can (push.BlockScanner): a node stopped between a commit and its indexing never
// indexes that block's txs.
func (d *deploying) find(ctx context.Context, a journal.Record) (push.Outcome, error) {
	out, err := d.chain.Lookup(ctx, a.Hash)
	if err != nil || out.Found {
		return out, err
	}
	if bs, ok := d.chain.(push.BlockScanner); ok {
		return bs.FindInBlocks(ctx, a.Hash, a.Time)
	}
	return out, nil
}

func (d *deploying) inPool(ctx context.Context, hash string) (bool, error) {
	pc, ok := d.chain.(push.PoolChecker)
	if !ok {
		return false, nil
	}
	return pc.InPool(ctx, hash)
}

func errOr(err error) error {
	if err != nil {
		return err
	}
	return errors.New("failed")
}
