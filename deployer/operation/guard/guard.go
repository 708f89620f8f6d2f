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

	"github.com/vipharness/vipharness/deployer"
)

// L1 reports the L1's current VIP stage (deployer/operation/stage.Reader is one).
type L1 interface {
	Stage(ctx context.Context) (uint64, error)
}

// Contract is what the decisions read of a scoring contract.
type Contract interface {
	OpenStage(ctx context.Context) (uint64, error)
	StageInfo(ctx context.Context, stage uint64) (deployer.StageInfo, error)
}

// RefusedError is an operation refused before anything was sent.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

func refuse(format string, args ...any) error {
	return &RefusedError{Reason: fmt.Sprintf(format, args...)}
}

// noL1 is the hint given when a decision needs the L1 and none is configured.
const noL1 = "configure the L1 (--l1-rest and --vip-address, or --network)"

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
		// --force closes a stage early only when it is named: a retry of an unnamed one would
		// close the stage after it too.
		case req.Force && (l1 == nil || d.L1Stage <= open):
			return d, refuse("finalize: --force needs --stage: name the stage to close early (the contract's open stage is %d: --stage %d --force), so a retry cannot close stage %d too", open, open, open+1)
		case l1 == nil:
			return d, refuse("finalize: which stage? the contract's open stage is %d; pass --stage %d, or %s so the open stage is finalized only once the L1 has moved past it", open, open, noL1)
		case d.L1Stage <= open:
			return d, refuse("finalize: the contract's open stage is %d and the L1 is at stage %d: the L1 has not moved past stage %d, so nothing was finalized (to close it early anyway: --stage %d --force)", open, d.L1Stage, open, open)
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
		return d, refuse("finalize: stage %d is not open: the contract's open stage is %d (stages open one at a time; finalizing %d opens %d)", d.Stage, open, open, open+1)
	}
	switch {
	case l1 == nil && !req.Force:
		return d, refuse("finalize: no L1 to tell whether stage %d is over: %s, or pass --force to finalize it regardless", d.Stage, noL1)
	case l1 == nil:
		d.Risks = append(d.Risks, fmt.Sprintf("no L1 was asked whether stage %d is over", d.Stage))
	case d.L1Stage <= d.Stage && !req.Force:
		return d, refuse("finalize: the L1 is at stage %d and has not moved past stage %d; finalizing it now closes it early and opens stage %d (pass --force to do it anyway)", d.L1Stage, d.Stage, d.Stage+1)
	case d.L1Stage <= d.Stage:
		d.Risks = append(d.Risks, fmt.Sprintf("the L1 is still at stage %d: stage %d closes early and stage %d opens ahead of the L1", d.L1Stage, d.Stage, d.Stage+1))
	}
	if info.TotalScore == 0 {
		if !req.AllowEmpty {
			return d, refuse("finalize: stage %d is empty (total score 0); a finalized stage never changes again, so its scores would be lost to the program (pass --allow-empty to finalize it empty)", d.Stage)
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
		return 0, refuse("update scores: which stage? pass --stage N, or %s so the L1's current stage is written", noL1)
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
		return 0, refuse("update scores: the L1 is at stage %d but the contract's open stage is %d; finalize the stages the L1 has moved past first (`vipctl stage sync`), or pass --stage %d to write stage %d anyway", l1Stage, open, open, open)
	case open > l1Stage:
		return 0, refuse("update scores: the contract's open stage is %d, ahead of the L1 at stage %d (a stage was finalized early); nothing was written: `vipctl stage sync` cannot move a contract back, so pass --stage %d once the L1 reaches it", open, l1Stage, open)
	}
	return open, nil
}

// Describe lists risks for a confirmation prompt.
func Describe(risks []string) string { return strings.Join(risks, "; ") }
