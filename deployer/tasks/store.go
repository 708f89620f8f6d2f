package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
)

// Store remembers the contracts deployed from one state dir: a JSON file per VM and chain
// id under Dir/deployments, so that later commands on the chain find the contract.
type Store struct {
	Dir string
}

// Remembered is what the store holds of a deployment.
type Remembered struct {
	vip.Deployment
	Time time.Time `json:"time"`
	// FirstBlock is the chain's first block hash at the deploy: the same chain id with
	// another first block is a chain started again, where the remembered contract is not.
	FirstBlock string `json:"first_block,omitempty"`
}

// ErrNotRemembered is a chain the store holds no deployment for.
var ErrNotRemembered = errors.New("no deployment remembered")

// Path is the file of vm's deployment on chainID.
func (s Store) Path(vm vip.VM, chainID string) string {
	return filepath.Join(s.Dir, "deployments", fmt.Sprintf("%s-%s.json", vm, chainID))
}

// Save remembers d, made on the chain whose first block is firstBlock ("" when unknown).
func (s Store) Save(d vip.Deployment, firstBlock string) error {
	path := s.Path(d.VM, d.ChainID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save deployment: %w", err)
	}
	b, err := json.MarshalIndent(Remembered{Deployment: d, Time: time.Now().UTC(), FirstBlock: firstBlock}, "", "  ")
	if err != nil {
		return fmt.Errorf("save deployment: %w", err)
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Load is vm's deployment on chainID; ErrNotRemembered when there is none.
func (s Store) Load(vm vip.VM, chainID string) (Remembered, error) {
	path := s.Path(vm, chainID)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Remembered{}, fmt.Errorf("%w on chain %s", ErrNotRemembered, chainID)
	}
	if err != nil {
		return Remembered{}, err
	}
	var d Remembered
	if err := json.Unmarshal(b, &d); err != nil {
		return Remembered{}, fmt.Errorf("read deployment state %s: %w", path, err)
	}
	return d, nil
}

// RestartedError is a remembered deployment on a chain started again under its chain id
// (another first block): its contract address may hold another contract, or none.
type RestartedError struct {
	Remembered
	Now  string // this chain's first block
	Path string // the store's file
}

func (e *RestartedError) Error() string {
	return fmt.Sprintf("the state dir's deployment %s on chain %s was made on another chain of that id (first block %s; this chain's is %s): the chain was started again; deploy again, or pass --contract; nothing was sent (%s)",
		e.Contract, e.ChainID, e.FirstBlock, e.Now, e.Path)
}

// CheckSameChain refuses (a *RestartedError) the store's deployment of s's contract when
// s's chain is not the one it was made on. Nothing remembered, or a check that cannot be
// made, passes: the contract's interface check still runs.
func (s Store) CheckSameChain(ctx context.Context, sc *deployer.Scorer) error {
	d, err := s.Load(sc.VM(), sc.ChainID())
	if err != nil || d.FirstBlock == "" || d.Contract != sc.Contract() {
		return nil
	}
	now, err := sc.FirstBlock(ctx)
	if err != nil || now == "" {
		return nil
	}
	if now != d.FirstBlock {
		return &RestartedError{Remembered: d, Now: now, Path: s.Path(sc.VM(), sc.ChainID())}
	}
	return nil
}

// Chain names a chain: its id and its first block's hash ("" when the chain cannot name
// it). A chain started again under the same id has another first block.
type Chain struct {
	ID, FirstBlock string
}

// Identified is what naming a chain needs of it: *deployer.Scorer is one.
type Identified interface {
	ChainID() string
	FirstBlock(ctx context.Context) (string, error)
}

// Identify names c's chain; a first block that cannot be read is "".
func Identify(ctx context.Context, c Identified) Chain {
	first, err := c.FirstBlock(ctx)
	if err != nil {
		first = ""
	}
	return Chain{c.ChainID(), first}
}

// OtherChainError is a chain that is not the one expected: another chain id, or the same
// id started again (Restarted: another first block).
type OtherChainError struct {
	Want, Got Chain
	Restarted bool
}

func (e *OtherChainError) Error() string {
	if e.Restarted {
		return fmt.Sprintf("chain %s was started again (first block %s, was %s)", e.Got.ID, e.Got.FirstBlock, e.Want.FirstBlock)
	}
	return fmt.Sprintf("chain %s, not %s", e.Got.ID, e.Want.ID)
}

// Same refuses (an *OtherChainError) c when its chain is not ch. A first block either side
// cannot name passes.
func (ch Chain) Same(ctx context.Context, c Identified) error {
	now := Identify(ctx, c)
	switch {
	case now.ID != ch.ID:
		return &OtherChainError{Want: ch, Got: now}
	case ch.FirstBlock != "" && now.FirstBlock != "" && now.FirstBlock != ch.FirstBlock:
		return &OtherChainError{Want: ch, Got: now, Restarted: true}
	}
	return nil
}
