package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/vipwasm"
	"github.com/vipharness/vipharness/deployer"
)

// SimulateWrite simulates update_scores of stage with no scores from the operator (nothing
// is sent, and the update would change nothing) and returns the contract's refusal, if any.
func (s *Contract) SimulateWrite(ctx context.Context, stage uint64) error {
	if err := s.needContract(); err != nil {
		return err
	}
	return s.SimulateAsOperator(ctx, func(sender string) (sdk.Msg, error) {
		return updateMsg(sender, s.contract, stage, nil)
	})
}

// TxEventNames lists the contract's custom events (`wasm-<kind>`) in a tx's result, in order.
func (s *Contract) TxEventNames(ctx context.Context, txHash string) ([]string, error) {
	res, err := s.C.GetTx(ctx, txHash)
	if err != nil {
		return nil, fmt.Errorf("tx %s: %w", txHash, err)
	}
	var names []string
	for _, ev := range res.Events {
		if !strings.HasPrefix(ev.Type, "wasm-") {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == "_contract_address" && a.Value == s.contract {
				names = append(names, ev.Type)
				break
			}
		}
	}
	return names, nil
}

// CheckInterface queries the contract with the official query messages for its open stage
// and decodes each reply strictly in the official shape (an unknown or missing field fails).
func (s *Contract) CheckInterface(ctx context.Context) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	open, err := deployer.OpenStage(ctx, s)
	if err != nil {
		return "", err
	}
	strict := func(q vipwasm.Query, out any, fields ...string) error {
		var raw json.RawMessage
		if err := Smart(ctx, s.C, s.contract, q, &raw); err != nil {
			return decodeContract(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("reply %s is not an object", raw)
		}
		for _, f := range fields {
			if _, ok := m[f]; !ok {
				return fmt.Errorf("reply %s has no %q", raw, f)
			}
		}
		if len(m) != len(fields) {
			return fmt.Errorf("reply %s has fields beyond %v", raw, fields)
		}
		return json.Unmarshal(raw, out)
	}
	var info vipwasm.StageInfo
	if err := strict(vipwasm.Query{GetStageInfo: &vipwasm.Stage{Stage: open}}, &info, "stage", "total_score", "is_finalized"); err != nil {
		return "", fmt.Errorf("get_stage_info{stage: %d}: %w", open, err)
	}
	if info.Stage != open {
		return "", fmt.Errorf("get_stage_info{stage: %d} answers stage %d", open, info.Stage)
	}
	var page vipwasm.ScoresPage
	if err := strict(vipwasm.Query{GetScores: &vipwasm.GetScores{Stage: open, Limit: 1}}, &page, "scores"); err != nil {
		return "", fmt.Errorf("get_scores{stage: %d, limit: 1}: %w", open, err)
	}
	if len(page.Scores) > 1 {
		return "", fmt.Errorf("get_scores with limit 1 returned %d rows", len(page.Scores))
	}
	if len(page.Scores) == 1 {
		var one vipwasm.UserScore
		row := page.Scores[0]
		if err := strict(vipwasm.Query{GetScore: &vipwasm.GetScore{Addr: row.Addr, Stage: open}}, &one, "stage", "addr", "score"); err != nil {
			return "", fmt.Errorf("get_score{addr: %s, stage: %d}: %w", row.Addr, open, err)
		}
		if one != row {
			return "", fmt.Errorf("get_score answers %+v, get_scores %+v", one, row)
		}
	}
	return "get_stage_info, get_scores and get_score answer in the official shapes", nil
}
