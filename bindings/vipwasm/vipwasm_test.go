package vipwasm

import (
	"encoding/json"
	"testing"
)

func TestMessageJSON(t *testing.T) {
	after := "init1zz"
	for _, tc := range []struct {
		name string
		msg  any
		want string
	}{
		{"instantiate", Instantiate{AllowList: []string{"init1a", "init1b"}, InitStage: 7}, `{"allow_list":["init1a","init1b"],"init_stage":7}`},
		{"update_scores", Execute{UpdateScores: &UpdateScores{Stage: 3, Scores: []Score{{"init1a", 10}, {"init1b", 18446744073709551615}}}}, `{"update_scores":{"stage":3,"scores":[["init1a",10],["init1b",18446744073709551615]]}}`},
		{"update_score", Execute{UpdateScore: &AddrAmount{Addr: "init1a", Stage: 3, Amount: 5}}, `{"update_score":{"addr":"init1a","stage":3,"amount":5}}`},
		{"finalize_stage", Execute{FinalizeStage: &Stage{Stage: 4}}, `{"finalize_stage":{"stage":4}}`},
		{"add_allow_list", Execute{AddAllowList: &Addr{Addr: "init1c"}}, `{"add_allow_list":{"addr":"init1c"}}`},
		{"get_scores first page", Query{GetScores: &GetScores{Stage: 3, Limit: 100}}, `{"get_scores":{"stage":3,"limit":100}}`},
		{"get_scores next page", Query{GetScores: &GetScores{Stage: 3, Limit: 100, StartAfter: &after}}, `{"get_scores":{"stage":3,"limit":100,"start_after":"init1zz"}}`},
		{"get_stage_info", Query{GetStageInfo: &Stage{Stage: 9}}, `{"get_stage_info":{"stage":9}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestScoreUnmarshal(t *testing.T) {
	var s Score
	if err := json.Unmarshal([]byte(`["init1a", 42]`), &s); err != nil || s != (Score{"init1a", 42}) {
		t.Fatalf("got %+v, %v", s, err)
	}
	for _, bad := range []string{`["init1a"]`, `{"addr":"x"}`, `[1, 2]`, `["init1a", -1]`, `["init1a", 1, 2]`} {
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
