package deployer

import (
	"errors"
	"fmt"

	"github.com/vipharness/vipharness/deployer/scores"
)

// ErrTotalOverflow matches every TotalOverflowError.
var ErrTotalOverflow = errors.New("stage total above the u64 limit")

// TotalOverflowError is an update refused before anything was sent: part way through it, or
// at its end, the stage's total score would pass the u64 limit that every VM's contract
// holds it in. Total is the stage's exact total where it first passes; Entry is the entry
// (from 1, in the input's order) at which it does.
type TotalOverflowError struct {
	Stage uint64
	Total scores.Total
	Entry int
	Addr  string
}

func (e *TotalOverflowError) Error() string {
	return fmt.Sprintf("update scores stage %d: the stage's total score would reach %s at entry %d (%s), above the u64 limit %d; nothing was sent",
		e.Stage, e.Total, e.Entry, e.Addr, scores.MaxTotal)
}

func (e *TotalOverflowError) Is(target error) bool { return target == ErrTotalOverflow }
