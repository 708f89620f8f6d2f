package move

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// FinalizeTx finds the tx whose FinalizedScoreEvent from this module names stage.
func (s *Contract) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if err := s.needModule(); err != nil {
		return "", err
	}
	tag := s.owner.Short() + "::" + ModuleName + "::FinalizedScoreEvent"
	isStage := func(ev abci.Event) bool {
		if cosmostx.EventAttr([]abci.Event{ev}, ev.Type, "type_tag", nil) != tag {
			return false
		}
		var data struct {
			Stage json.RawMessage `json:"stage"`
		}
		if json.Unmarshal([]byte(cosmostx.EventAttr([]abci.Event{ev}, ev.Type, "data", nil)), &data) != nil {
			return false
		}
		var n string
		if json.Unmarshal(data.Stage, &n) != nil {
			n = string(data.Stage) // a bare number
		}
		return n == strconv.FormatUint(stage, 10)
	}
	return s.C.FindTx(ctx, fmt.Sprintf("move.type_tag='%s'", tag), func(events []abci.Event) bool {
		return cosmostx.EventAttr(events, "move", "type_tag", isStage) != ""
	})
}
