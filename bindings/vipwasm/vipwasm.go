// Package vipwasm is the Go face of the VIP score CosmWasm contract (contracts/wasm): its
// instantiate, execute and query messages and its replies, with the JSON shapes of the
// official initia-labs/vip-score-wasm (snake_case variant keys, u64 as JSON numbers, scores
// as [[address, score], ...]).
package vipwasm

import (
	"encoding/json"
	"fmt"
)

// Instantiate creates the contract: the allow list may write scores and finalize stages;
// InitStage is the first open stage.
type Instantiate struct {
	AllowList []string `json:"allow_list"`
	InitStage uint64   `json:"init_stage"`
}

// Execute is one execute message; exactly one field is set.
type Execute struct {
	UpdateScores    *UpdateScores `json:"update_scores,omitempty"`
	UpdateScore     *AddrAmount   `json:"update_score,omitempty"`
	IncreaseScore   *AddrAmount   `json:"increase_score,omitempty"`
	DecreaseScore   *AddrAmount   `json:"decrease_score,omitempty"`
	FinalizeStage   *Stage        `json:"finalize_stage,omitempty"`
	AddAllowList    *Addr         `json:"add_allow_list,omitempty"`
	RemoveAllowList *Addr         `json:"remove_allow_list,omitempty"`
}

// UpdateScores sets the scores of many addresses in an open stage.
type UpdateScores struct {
	Stage  uint64  `json:"stage"`
	Scores []Score `json:"scores"`
}

// Score is one (address, score) pair, written as a two-element JSON array.
type Score struct {
	Addr  string
	Score uint64
}

// MarshalJSON writes [addr, score].
func (s Score) MarshalJSON() ([]byte, error) { return json.Marshal([2]any{s.Addr, s.Score}) }

// UnmarshalJSON reads [addr, score].
func (s *Score) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil || len(pair) != 2 {
		return fmt.Errorf("score pair %s: want [address, score]", b)
	}
	if err := json.Unmarshal(pair[0], &s.Addr); err != nil {
		return fmt.Errorf("score pair %s: address: %w", b, err)
	}
	if err := json.Unmarshal(pair[1], &s.Score); err != nil {
		return fmt.Errorf("score pair %s: score: %w", b, err)
	}
	return nil
}

// AddrAmount addresses one score of a stage.
type AddrAmount struct {
	Addr   string `json:"addr"`
	Stage  uint64 `json:"stage"`
	Amount uint64 `json:"amount"`
}

// Stage names a stage.
type Stage struct {
	Stage uint64 `json:"stage"`
}

// Addr names an account.
type Addr struct {
	Addr string `json:"addr"`
}

// Query is one query message; exactly one field is set.
type Query struct {
	GetScore     *GetScore  `json:"get_score,omitempty"`
	GetScores    *GetScores `json:"get_scores,omitempty"`
	GetStageInfo *Stage     `json:"get_stage_info,omitempty"`
}

// GetScore reads one address's score at a stage.
type GetScore struct {
	Addr  string `json:"addr"`
	Stage uint64 `json:"stage"`
}

// GetScores reads up to Limit scores of a stage after StartAfter, in address order.
type GetScores struct {
	Stage      uint64  `json:"stage"`
	Limit      uint64  `json:"limit"`
	StartAfter *string `json:"start_after,omitempty"`
}

// UserScore is a get_score reply and a get_scores row.
type UserScore struct {
	Stage uint64 `json:"stage"`
	Addr  string `json:"addr"`
	Score uint64 `json:"score"`
}

// ScoresPage is a get_scores reply.
type ScoresPage struct {
	Scores []UserScore `json:"scores"`
}

// StageInfo is a get_stage_info reply.
type StageInfo struct {
	Stage       uint64 `json:"stage"`
	TotalScore  uint64 `json:"total_score"`
	IsFinalized bool   `json:"is_finalized"`
}

// InitStageKey is the storage key of the contract's first stage (a JSON number), read with a
// raw query because no query message returns it.
var InitStageKey = []byte("init_stage")
