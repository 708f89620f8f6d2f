package l1node

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ErrStageNotStarted is a stage the L1 has not reached: it has no times yet.
var ErrStageNotStarted = errors.New("the L1 has not reached this stage")

// StageTimes are a stage's start and end on the L1 (unix seconds; the end is excluded), as
// the vip module records them when it moves a stage: the current stage's in ModuleStore,
// a past stage's at the head of its StageData.
type StageTimes struct {
	Stage, Start, End uint64
	// Current: the stage is the L1's current one (not yet moved past).
	Current bool
}

// StageTimes reads the start and end of stage.
func (l *Reader) StageTimes(ctx context.Context, stage uint64) (StageTimes, error) {
	out := StageTimes{Stage: stage}
	wrap := func(err error) error { return fmt.Errorf("read the L1's times of stage %d: %w", stage, err) }
	tag, resource, err := l.moduleStore(ctx)
	if err != nil {
		return out, wrap(err)
	}
	var ms struct {
		Data struct {
			Stage     string `json:"stage"`
			Start     string `json:"stage_start_time"`
			End       string `json:"stage_end_time"`
			StageData struct {
				Handle string `json:"handle"`
			} `json:"stage_data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resource, &ms); err != nil {
		return out, wrap(fmt.Errorf("%s: %q: %w", tag, snippet(resource), err))
	}
	cur, err := strconv.ParseUint(ms.Data.Stage, 10, 64)
	if err != nil {
		return out, wrap(fmt.Errorf("%s: stage %q is not a u64", tag, ms.Data.Stage))
	}
	switch {
	case stage > cur:
		return out, wrap(fmt.Errorf("the L1 is at stage %d: %w", cur, ErrStageNotStarted))
	case stage == cur:
		s, err1 := strconv.ParseUint(ms.Data.Start, 10, 64)
		e, err2 := strconv.ParseUint(ms.Data.End, 10, 64)
		if err1 != nil || err2 != nil {
			return out, wrap(fmt.Errorf("%s has no stage_start_time and stage_end_time u64s (%q, %q)", tag, ms.Data.Start, ms.Data.End))
		}
		out.Start, out.End, out.Current = s, e, true
		return out, nil
	}
	if ms.Data.StageData.Handle == "" {
		return out, wrap(fmt.Errorf("%s has no stage_data table", tag))
	}
	sd, err := l.entry(ctx, ms.Data.StageData.Handle, TableKey(stage))
	if errors.Is(err, ErrNoSnapshot) {
		return out, wrap(errors.New("the L1 keeps no stage data for it"))
	}
	if err != nil {
		return out, wrap(err)
	}
	// StageData opens with stage_start_time: u64, stage_end_time: u64 (BCS, little-endian).
	if len(sd) < 16 {
		return out, wrap(fmt.Errorf("stage data of %d bytes holds no times", len(sd)))
	}
	out.Start, out.End = binary.LittleEndian.Uint64(sd), binary.LittleEndian.Uint64(sd[8:])
	if out.End <= out.Start {
		return out, wrap(fmt.Errorf("stage data says start %d, end %d", out.Start, out.End))
	}
	return out, nil
}
