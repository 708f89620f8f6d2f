package cosmostx

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Base is the half of a Move or a Wasm deployer.Contract that is the same on both: the
// chain client, the deployer's and the operator's keys, the push settings and the tx size
// limit, the chain's names for itself, and the operator's simulated and sent calls with the
// VM's errors. Each of the two VMs' Contracts embeds it and adds its messages and reads.
type Base struct {
	// C is the chain client.
	C *Client
	// MaxTxBytes is the node's mempool tx size limit; Push how txs are sent.
	MaxTxBytes int
	Push       deployer.PushConfig

	vm                       vip.VM
	deployerKey, operatorKey keys.Signer
	decode                   func(error) error
}

// Driver is the deployer.Driver of a Cosmos VM: the shared half (NewBase) dialled, and the
// VM's own Contract around it (contract).
func Driver(spec vip.Spec, register func(codectypes.InterfaceRegistry), decode func(error) error,
	contract func(Base, deployer.Config) deployer.Contract) deployer.Driver {
	return deployer.Driver{Spec: spec, Dial: func(ctx context.Context, cfg deployer.Config) (deployer.Contract, error) {
		base, err := NewBase(ctx, spec.VM, cfg, register, decode)
		if err != nil {
			return nil, err
		}
		return contract(base, cfg), nil
	}}
}

// NewBase dials the rollup of a validated cfg for vm, whose messages register adds and
// whose contract's refusals decode turns into the VM's own errors.
func NewBase(ctx context.Context, vm vip.VM, cfg deployer.Config, register func(codectypes.InterfaceRegistry), decode func(error) error) (Base, error) {
	c, err := DialFor(ctx, cfg, register)
	if err != nil {
		return Base{}, fmt.Errorf("dial %s rollup: %w", vm, err)
	}
	return Base{C: c, MaxTxBytes: cfg.Cosmos.MaxTxBytes, Push: cfg.Push, vm: vm,
		deployerKey: cfg.Deployer, operatorKey: cfg.Operator, decode: decode}, nil
}

// VM is the contract's VM.
func (b *Base) VM() vip.VM { return b.vm }

// ChainID is the chain id the node reported.
func (b *Base) ChainID() string { return b.C.ChainID }

// Bech32Prefix is the chain's account address prefix.
func (b *Base) Bech32Prefix() string { return b.C.Prefix() }

// Codec is bech32 under the chain's prefix.
func (b *Base) Codec() scores.Codec { return scores.Bech32Codec{Prefix: b.C.Prefix()} }

// JournalChain is "<vm>-<chain id>".
func (b *Base) JournalChain() string { return string(b.vm) + "-" + b.C.ChainID }

// Close releases nothing: the client holds no connection open between calls.
func (b *Base) Close() {}

// Decode is the VM's error of a failed tx or query (err itself when the VM has no decoder).
func (b *Base) Decode(err error) error {
	if b.decode == nil || err == nil {
		return err
	}
	return b.decode(err)
}

// Operator is the operator's account on the chain; Deployer the deployer's.
func (b *Base) Operator(ctx context.Context) (*Signer, error) {
	return b.C.RoleSigner(ctx, b.operatorKey, "operator")
}

// Deployer is the deployer's account on the chain.
func (b *Base) Deployer(ctx context.Context) (*Signer, error) {
	return b.C.RoleSigner(ctx, b.deployerKey, "deployer")
}

// OperatorAddress is the operator's bech32 address, "" without an operator.
func (b *Base) OperatorAddress() string {
	if b.operatorKey == nil {
		return ""
	}
	return b.C.Address(b.operatorKey.PubKey())
}

// SimulateAsOperator simulates the message msg builds for the operator's address (nothing is
// sent; SimulatePending) and returns the VM's error, if any.
func (b *Base) SimulateAsOperator(ctx context.Context, msg func(sender string) (sdk.Msg, error)) error {
	op, err := b.Operator(ctx)
	if err != nil {
		return err
	}
	m, err := msg(op.Address)
	if err != nil {
		return err
	}
	_, err = b.C.SimulatePending(ctx, op, m)
	return b.Decode(err)
}

// SimulatePending is Simulate from s at the sequence the chain expects: when s's txs are
// still in the mempool (the REST face reads the sequence the last block left), the
// simulation is run again at the sequence the refusal names. What a simulation proves or
// measures does not depend on the sequence; a tx signed after it takes its own.
func (c *Client) SimulatePending(ctx context.Context, s *Signer, msgs ...sdk.Msg) (*txtypes.SimulateResponse, error) {
	res, err := c.Simulate(ctx, s, msgs...)
	if seq, ok := expectedSequence(err); ok && seq != s.Sequence {
		at := *s
		at.Sequence = seq
		return c.Simulate(ctx, &at, msgs...)
	}
	return res, err
}

// wrongSequence is the ante handler's refusal of a tx signed at another sequence.
var wrongSequence = regexp.MustCompile(`account sequence mismatch, expected (\d+), got \d+`)

// expectedSequence is the sequence a simulation refused for its sequence expected.
func expectedSequence(err error) (uint64, bool) {
	var te *TxError
	if !errors.As(err, &te) || te.Phase != PhaseSimulate {
		return 0, false
	}
	m := wrongSequence.FindStringSubmatch(te.RawLog)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	return n, err == nil
}

// ExecAsOperator sends the message msg builds for the operator's address (simulated, signed,
// broadcast, waited for) and returns its tx hash, or the VM's error.
func (b *Base) ExecAsOperator(ctx context.Context, msg func(sender string) (sdk.Msg, error)) (string, error) {
	op, err := b.Operator(ctx)
	if err != nil {
		return "", err
	}
	m, err := msg(op.Address)
	if err != nil {
		return "", err
	}
	res, err := b.C.Exec(ctx, op, m)
	if err != nil {
		return "", b.Decode(err)
	}
	return res.TxHash, nil
}

// FundFresh readies the fresh account to sign on this rollup, where the chain simulates only
// for an existing account: funder pays it the fees of gas. It returns the gas price those
// fees were counted at (deployer.FreshFunder).
func (b *Base) FundFresh(ctx context.Context, funder, fresh keys.Signer, gas uint64) (*sdk.DecCoin, error) {
	if funder == nil {
		return nil, errors.New("no key to fund a fresh account with")
	}
	sg, err := b.C.SignerOf(ctx, funder)
	if err != nil {
		return nil, fmt.Errorf("funding account: %w", err)
	}
	if err := b.C.Fund(ctx, sg, b.C.Address(fresh.PubKey()), b.C.FeeFunds(gas)); err != nil {
		return nil, fmt.Errorf("fund a fresh account: %w", err)
	}
	price := b.C.GasPrice()
	return &price, nil
}

// DeployTx is the deployer's deploy tx of msgs (DeployTx), with the VM's errors.
func (b *Base) DeployTx(dep *Signer, msgs func(stage uint64) ([]sdk.Msg, string, error)) DeployTx {
	return DeployTx{C: b.C, Signer: dep, Msgs: msgs, Decode: b.decode}
}

// Messages are a Cosmos VM's own words, which the shared half sends for it: the update of
// a chunk's scores and the finalize of a stage, as the VM's contract takes them from sender.
type Messages interface {
	UpdateMsg(sender string, stage uint64, chunk scores.Chunk) (sdk.Msg, error)
	FinalizeMsg(sender string, stage uint64) (sdk.Msg, error)
}

// Finalize sends the operator's finalize of stage in m's words and returns its tx hash.
func (b *Base) Finalize(ctx context.Context, stage uint64, m Messages) (string, error) {
	hash, err := b.ExecAsOperator(ctx, func(sender string) (sdk.Msg, error) { return m.FinalizeMsg(sender, stage) })
	if err != nil {
		return "", fmt.Errorf("finalize stage %d: %w", stage, err)
	}
	return hash, nil
}

// OperatorUpdate is Client.PrepareUpdate for the operator's updates of stage in m's words,
// within the VM's bounds; the signer, the VM's errors and the tx size limit are the base's.
func (b *Base) OperatorUpdate(ctx context.Context, stage uint64, m Messages, bounds UpdateSpec) (deployer.Update, error) {
	op, err := b.Operator(ctx)
	if err != nil {
		return deployer.Update{}, fmt.Errorf("update scores stage %d: %w", stage, err)
	}
	u := bounds
	u.Msgs, u.Signer, u.Decode, u.MaxTxBytes = m, op, b.decode, b.MaxTxBytes
	return b.C.PrepareUpdate(ctx, stage, u)
}

// PageRows reads a stage through a contract's paged read (both Cosmos VMs' get_scores go by
// start_after): read returns a page of at most size rows after the cursor (nil: the first)
// and the cursor of its last row; a short page is the last. each must not keep a page.
func PageRows[K any](stage uint64, size int, read func(after *K) ([]scores.Row, K, error), each func([]scores.Row) error) error {
	var after *K
	for n := 0; ; {
		page, last, err := read(after)
		if err != nil {
			return fmt.Errorf("read scores stage %d after %d rows: %w", stage, n, err)
		}
		n += len(page)
		if err := each(page); err != nil || len(page) < size {
			return err
		}
		after = &last
	}
}
