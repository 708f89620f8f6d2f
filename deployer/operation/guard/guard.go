// Package guard decides, before anything is sent, whether a stage operation is safe: which
// stage a finalize or a score update targets given the contract's open stage and the L1's
// stage, and which risks (an empty stage, a stage the L1 has not moved past) need the
// operator's explicit consent. It also keeps a write-ahead record of every finalize, so a
// retried finalize reports the transaction that finalized the stage and sends nothing.
//
// Everything here works over small views of a deployer.Scorer, the same way for every VM.
package guard

import (
	"context"
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
)

// L1 reports the L1's current VIP stage (deployer/operation/l1node.Reader is one).
type L1 interface {
	Stage(ctx context.Context) (uint64, error)
}

// Contract is what the decisions read of a scoring contract.
type Contract interface {
	OpenStage(ctx context.Context) (uint64, error)
	StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error)
}

// Refusal is why an operation was refused before anything was sent.
type Refusal int

const (
	// ForceWithoutStage is a forced finalize that does not name its stage: a retry of it
	// could close the stage after too.
	ForceWithoutStage Refusal = iota + 1
	// NoStage is an operation with neither a stage named nor an L1 to choose one.
	NoStage
	// L1NotPast is a finalize of a stage the L1 has not moved past, without Force.
	L1NotPast
	// NotOpen is a finalize of a stage that is not the contract's open stage.
	NotOpen
	// NoL1 is a finalize with no L1 to tell whether its stage is over, without Force.
	NoL1
	// EmptyStage is a finalize of a stage whose total score is 0, without AllowEmpty.
	EmptyStage
	// ContractBehind is an update whose contract's open stage is behind the L1's stage.
	ContractBehind
	// ContractAhead is an update whose contract's open stage is ahead of the L1's stage.
	ContractAhead
)

// RefusedError is an operation refused before anything was sent: why, and the stages the
// decision read. A front end words it with its own flags (vipctl: stageguard.go).
type RefusedError struct {
	Op  string // "finalize" or "update scores"
	Why Refusal
	// Stage is the stage the operation targets (0: none named or chosen yet); Open the
	// contract's open stage; L1Stage the L1's (0: no L1 was asked).
	Stage, Open, L1Stage uint64
}

func (e *RefusedError) Error() string {
	var why string
	switch e.Why {
	case ForceWithoutStage:
		why = fmt.Sprintf("a forced finalize must name its stage (the contract's open stage is %d), so a retry cannot close stage %d too", e.Open, e.Open+1)
	case NoStage:
		why = fmt.Sprintf("which stage? the contract's open stage is %d; name the stage, or give an L1 to choose it", e.Open)
	case L1NotPast:
		if e.Stage == 0 {
			why = fmt.Sprintf("the contract's open stage is %d and the L1 is at stage %d: the L1 has not moved past stage %d, so nothing was finalized", e.Open, e.L1Stage, e.Open)
		} else {
			why = fmt.Sprintf("the L1 is at stage %d and has not moved past stage %d; finalizing it now closes it early and opens stage %d", e.L1Stage, e.Stage, e.Stage+1)
		}
	case NotOpen:
		why = fmt.Sprintf("stage %d is not open: the contract's open stage is %d (stages open one at a time; finalizing %d opens %d)", e.Stage, e.Open, e.Open, e.Open+1)
	case NoL1:
		why = fmt.Sprintf("no L1 to tell whether stage %d is over", e.Stage)
	case EmptyStage:
		why = fmt.Sprintf("stage %d is empty (total score 0); a finalized stage never changes again, so its scores would be lost to the program", e.Stage)
	case ContractBehind:
		why = fmt.Sprintf("the L1 is at stage %d but the contract's open stage is %d; finalize the stages the L1 has moved past first", e.L1Stage, e.Open)
	case ContractAhead:
		why = fmt.Sprintf("the contract's open stage is %d, ahead of the L1 at stage %d (a stage was finalized early); nothing was written", e.Open, e.L1Stage)
	default:
		why = fmt.Sprintf("refused (%d)", e.Why)
	}
	return e.Op + ": " + why
}

// FinalizeRequest is what the operator asked for.
type FinalizeRequest struct {
	// Stage to finalize; 0 means the contract's open stage, only once the L1 has moved past it.
	Stage uint64
	// AllowEmpty consents to finalizing a stage whose total score is 0.
	AllowEmpty bool
	// Force consents to finalizing a stage the L1 has not moved past (or with no L1 to ask).
	Force bool
}

// FinalizeDecision is what a finalize will do.
type FinalizeDecision struct {
	Stage     uint64 `json:"stage"`
	OpenStage uint64 `json:"open_stage"`
	L1Stage   uint64 `json:"l1_stage,omitempty"` // 0 when no L1 was asked
	// Done is true when the stage is already finalized: nothing is to be sent.
	Done bool `json:"already_finalized"`
	// Risks are what the consent flags accepted; a terminal asks to confirm them.
	Risks []string `json:"risks,omitempty"`
}

// refuse is a finalize's refusal for why, with the stages d holds.
func refuse(why Refusal, d FinalizeDecision) error {
	return &RefusedError{Op: "finalize", Why: why, Stage: d.Stage, Open: d.OpenStage, L1Stage: d.L1Stage}
}

// DecideFinalize chooses the stage a finalize targets and refuses, naming the stages, when
// it is not safe without the consent the request lacks. l1 may be nil (none configured).
func DecideFinalize(ctx context.Context, c Contract, l1 L1, req FinalizeRequest) (FinalizeDecision, error) {
	open, err := c.OpenStage(ctx)
	if err != nil {
		return FinalizeDecision{}, fmt.Errorf("finalize: read the contract's open stage: %w", err)
	}
	d := FinalizeDecision{Stage: req.Stage, OpenStage: open}
	if l1 != nil {
		if d.L1Stage, err = l1.Stage(ctx); err != nil {
			return d, fmt.Errorf("finalize: read the L1 stage: %w", err)
		}
	}
	if d.Stage == 0 {
		switch {
		// Force closes a stage early only when it is named: a retry of an unnamed one would
		// close the stage after it too.
		case req.Force && (l1 == nil || d.L1Stage <= open):
			return d, refuse(ForceWithoutStage, d)
		case l1 == nil:
			return d, refuse(NoStage, d)
		case d.L1Stage <= open:
			return d, refuse(L1NotPast, d)
		}
		d.Stage = open
	}
	info, err := c.StageInfo(ctx, d.Stage)
	if err != nil {
		return d, fmt.Errorf("finalize: read stage %d: %w", d.Stage, err)
	}
	if info.Finalized {
		d.Done = true
		return d, nil
	}
	if d.Stage != open {
		return d, refuse(NotOpen, d)
	}
	switch {
	case l1 == nil && !req.Force:
		return d, refuse(NoL1, d)
	case l1 == nil:
		d.Risks = append(d.Risks, fmt.Sprintf("no L1 was asked whether stage %d is over", d.Stage))
	case d.L1Stage <= d.Stage && !req.Force:
		return d, refuse(L1NotPast, d)
	case d.L1Stage <= d.Stage:
		d.Risks = append(d.Risks, fmt.Sprintf("the L1 is still at stage %d: stage %d closes early and stage %d opens ahead of the L1", d.L1Stage, d.Stage, d.Stage+1))
	}
	if info.TotalScore == 0 {
		if !req.AllowEmpty {
			return d, refuse(EmptyStage, d)
		}
		d.Risks = append(d.Risks, fmt.Sprintf("stage %d is empty (total score 0) and stays empty for good", d.Stage))
	}
	return d, nil
}

// UpdateStage is the stage a score update without an explicit stage writes: the L1's stage,
// when the contract's open stage equals it; otherwise it refuses, naming the command that
// reconciles the two.
func UpdateStage(ctx context.Context, c Contract, l1 L1) (uint64, error) {
	if l1 == nil {
		return 0, &RefusedError{Op: "update scores", Why: NoStage}
	}
	l1Stage, err := l1.Stage(ctx)
	if err != nil {
		return 0, fmt.Errorf("update scores: read the L1 stage: %w", err)
	}
	open, err := c.OpenStage(ctx)
	if err != nil {
		return 0, fmt.Errorf("update scores: read the contract's open stage: %w", err)
	}
	switch {
	case open < l1Stage:
		return 0, &RefusedError{Op: "update scores", Why: ContractBehind, Open: open, L1Stage: l1Stage}
	case open > l1Stage:
		return 0, &RefusedError{Op: "update scores", Why: ContractAhead, Open: open, L1Stage: l1Stage}
	}
	return open, nil
}

// Describe lists risks for a confirmation prompt.
func Describe(risks []string) string { return strings.Join(risks, "; ") }
