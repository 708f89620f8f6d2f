package wasm

import (
	"context"
	"fmt"
	"strconv"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// FinalizeTx finds the tx whose finalize-stage event (wasm-finalize-stage, emitted by this
// contract) names stage.
func (s *Contract) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	st := strconv.FormatUint(stage, 10)
	q := fmt.Sprintf("wasm-finalize-stage.stage='%s' AND wasm-finalize-stage._contract_address='%s'", st, s.contract)
	return s.C.FindTx(ctx, q, func(events []abci.Event) bool {
		return cosmostx.EventAttr(events, "wasm-finalize-stage", "stage", func(ev abci.Event) bool {
			return cosmostx.EventAttr([]abci.Event{ev}, ev.Type, "_contract_address", nil) == s.contract &&
				cosmostx.EventAttr([]abci.Event{ev}, ev.Type, "stage", nil) == st
		}) == st
	})
}
