package conformance

import (
	"context"
	"fmt"

	"github.com/vipharness/vipharness/deployer"
)

// Inspect runs the read-only checks of a deployed contract (s attached to it): its interface
// (EVM selectors, the Move module's ABI, the Wasm query shapes) and the operator's right to
// write it (an empty update of the open stage, simulated), where its open stage stands
// beside the L1's (l1Stage 0: no L1 given), the open stage's state and totals, and that the
// stage before it is finalized. Nothing is sent.
func Inspect(ctx context.Context, s Target, l1Stage uint64) Report {
	r := &run{s: Subject{Scorer: s}, report: Report{VM: s.VM(), Contract: s.Contract()}}
	// Every check here needs only the contract, which exists by assumption.
	r.deployed = true
	var open uint64
	r.check("interface", s.CheckInterface)
	r.check("open stage", func(ctx context.Context) (string, error) {
		var err error
		if open, err = s.OpenStage(ctx); err != nil {
			return "", fmt.Errorf("read the open stage: %w", err)
		}
		r.report.Stage = open
		info, err := s.StageInfo(ctx, open)
		if err != nil {
			return "", fmt.Errorf("read stage %d: %w", open, err)
		}
		if !info.Exists || info.Finalized {
			return "", fmt.Errorf("open stage %d reads as %+v: want it created and not finalized", open, info)
		}
		return fmt.Sprintf("stage %d", open), nil
	})
	r.check("open stage beside the L1 stage", func(ctx context.Context) (string, error) {
		switch {
		case open == 0:
			return "", skip("the open stage could not be read")
		case l1Stage == 0:
			return "", remedy{skip("no L1 given"), GiveL1}
		case open < l1Stage:
			return "", remedy{fmt.Errorf("the contract's open stage %d is behind the L1 stage %d: finalizing stages %d..%d brings it level", open, l1Stage, open, l1Stage-1), SyncStages}
		case open > l1Stage:
			return "", fmt.Errorf("the contract's open stage %d is ahead of the L1 stage %d: a stage was finalized before the L1 moved past it", open, l1Stage)
		}
		return fmt.Sprintf("both at stage %d", open), nil
	})
	r.check("stage total agrees with its scores", func(ctx context.Context) (string, error) {
		if open == 0 {
			return "", skip("the open stage could not be read")
		}
		rep, err := deployer.Verify(ctx, s, open, nil)
		if err != nil {
			return "", err
		}
		if !rep.TotalsAgree {
			return "", fmt.Errorf("stage %d total is %d, but its %d scores sum to something else", open, rep.TotalScore, rep.OnChain)
		}
		return fmt.Sprintf("%d scores, total %d", rep.OnChain, rep.TotalScore), nil
	})
	r.check("earlier stage finalized", func(ctx context.Context) (string, error) {
		if open <= 1 {
			return "", skip("no earlier stage")
		}
		info, err := s.StageInfo(ctx, open-1)
		if err != nil {
			return "", fmt.Errorf("read stage %d: %w", open-1, err)
		}
		switch {
		case !info.Exists:
			return fmt.Sprintf("the contract starts at stage %d", open), nil
		case !info.Finalized:
			return "", fmt.Errorf("stage %d is still open beside open stage %d", open-1, open)
		}
		return fmt.Sprintf("stage %d finalized, total %d", open-1, info.TotalScore), nil
	})
	return r.runAll(ctx)
}
