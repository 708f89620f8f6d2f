package move

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// SimulateMismatch simulates update_score_script with two addresses and one score from the
// operator (nothing is sent) and returns the module's abort. The deployer never builds such
// a call; conformance checks use it to see ENOT_MATCH_LENGTH.
func (s *Contract) SimulateMismatch(ctx context.Context, stage uint64) error {
	if err := s.needModule(); err != nil {
		return err
	}
	addrs := movebcs.ArgAddresses([]movebcs.Address{movebcs.MustAddress("0x1111"), movebcs.MustAddress("0x2222")})
	return s.SimulateAsOperator(ctx, func(sender string) (sdk.Msg, error) {
		return s.call(sender, "update_score_script", movebcs.ArgU64(stage), addrs, movebcs.ArgU64s([]uint64{1})), nil
	})
}

// SimulateWrite simulates update_score_script of stage with no addresses from the operator
// (nothing is sent, and the update would change nothing) and returns the module's abort, if
// any.
func (s *Contract) SimulateWrite(ctx context.Context, stage uint64) error {
	if err := s.needModule(); err != nil {
		return err
	}
	return s.SimulateAsOperator(ctx, func(sender string) (sdk.Msg, error) {
		return s.call(sender, "update_score_script", movebcs.ArgU64(stage), movebcs.ArgAddresses(nil), movebcs.ArgU64s(nil)), nil
	})
}

// TxEventNames lists the module's events in a tx's result, in order: the struct name of each
// `move` event whose type tag is this module's (UpdateScoreEvent, FinalizedScoreEvent, ...).
func (s *Contract) TxEventNames(ctx context.Context, txHash string) ([]string, error) {
	if err := s.needModule(); err != nil {
		return nil, err
	}
	res, err := s.C.GetTx(ctx, txHash)
	if err != nil {
		return nil, fmt.Errorf("tx %s: %w", txHash, err)
	}
	var names []string
	for _, ev := range res.Events {
		if ev.Type != "move" {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "type_tag" {
				continue
			}
			// "0x<module address>::vip_score::UpdateScoreEvent"
			parts := strings.Split(a.Value, "::")
			if len(parts) == 3 && parts[1] == ModuleName && s.isModuleAddress(parts[0]) {
				names = append(names, parts[2])
			}
		}
	}
	return names, nil
}

func (s *Contract) isModuleAddress(a string) bool {
	addr, err := movebcs.ParseAddress(a)
	return err == nil && s.owner != nil && addr == *s.owner
}
