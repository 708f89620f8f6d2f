package l1node

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A vip module at stage 5 (current: 5000..6000) with stage data for stage 3 only.
func stageTimesL1(t *testing.T, start, end string) *Reader {
	vip := "0x" + strings.Repeat("0", 62) + "77"
	sd := binary.LittleEndian.AppendUint64(nil, 3000)
	sd = binary.LittleEndian.AppendUint64(sd, 4000)
	sd = append(sd, make([]byte, 40)...) // the rest of StageData, snapshots last
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/resources/by_struct_tag"):
			res, _ := json.Marshal(map[string]any{"data": map[string]any{"stage": "5", "stage_start_time": start, "stage_end_time": end,
				"stage_data": map[string]string{"handle": "0xsd", "length": "1"}}})
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": map[string]string{"move_resource": string(res)}})
		case r.URL.Path == "/initia/move/v1/tables/0xsd/entries/by_key_bytes":
			key, _ := base64.StdEncoding.DecodeString(r.URL.Query().Get("key_bytes"))
			if string(key) != string(TableKey(3)) {
				http.Error(w, `{"code":5,"message":"not found"}`, http.StatusNotFound)
				return
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"table_entry": map[string]any{"value_bytes": sd}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return NewReader(srv.URL, vip, srv.Client())
}

func TestStageTimes(t *testing.T) {
	tests := []struct {
		name       string
		stage      uint64
		start, end string
		want       StageTimes
		err        string
	}{
		{"current stage from ModuleStore", 5, "5000", "6000", StageTimes{Stage: 5, Start: 5000, End: 6000, Current: true}, ""},
		{"past stage from its stage data", 3, "5000", "6000", StageTimes{Stage: 3, Start: 3000, End: 4000}, ""},
		{"a past stage without stage data", 2, "5000", "6000", StageTimes{}, "keeps no stage data"},
		{"a future stage", 6, "5000", "6000", StageTimes{}, ErrStageNotStarted.Error()},
		{"a ModuleStore without times", 5, "", "", StageTimes{}, "no stage_start_time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := stageTimesL1(t, tc.start, tc.end).StageTimes(context.Background(), tc.stage)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %+v, %v; want error %q", got, err, tc.err)
				}
				if tc.stage == 6 && !errors.Is(err, ErrStageNotStarted) {
					t.Fatalf("not ErrStageNotStarted: %v", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
