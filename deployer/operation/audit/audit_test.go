package audit

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
	"github.com/vipharness/vipharness/deployer/vip"
)

// fakeStage is a contract's stage held in memory, read back in pages of 3 as a Scorer does.
type fakeStage struct {
	info vip.StageInfo
	rows []scores.Entry
}

func (f *fakeStage) StageInfo(_ context.Context, stage uint64) (vip.StageInfo, error) {
	if stage != f.info.Stage {
		return vip.StageInfo{Stage: stage}, nil
	}
	return f.info, nil
}

func (f *fakeStage) ScorePages(_ context.Context, stage uint64, each func([]scores.Row) error) error {
	if stage != f.info.Stage {
		return nil
	}
	return scores.PageEntries(f.rows, f.Codec(), 3, each)
}

func (f *fakeStage) Codec() scores.Codec { return scores.EVMCodec{} }

func evmRows(n int) ([]scores.Entry, uint64) {
	var rows []scores.Entry
	var total uint64
	for i := range n {
		rows = append(rows, scores.Entry{Addr: scores.EVMCodec{}.Encode(addrN(i)), Amount: uint64(i % 4)})
		total += uint64(i % 4)
	}
	return rows, total
}

func TestBuildFromStage(t *testing.T) {
	rows, total := evmRows(10)
	tests := []struct {
		name      string
		info      vip.StageInfo
		rows      []scores.Entry
		stage     uint64
		allowOpen bool
		want      error
	}{
		{"finalized", vip.StageInfo{Stage: 3, TotalScore: total, Finalized: true, Exists: true}, rows, 3, false, nil},
		{"open refused", vip.StageInfo{Stage: 3, TotalScore: total, Exists: true}, rows, 3, false, ErrNotFinalized},
		{"open previewed", vip.StageInfo{Stage: 3, TotalScore: total, Exists: true}, rows, 3, true, nil},
		{"missing stage", vip.StageInfo{Stage: 3, TotalScore: total, Finalized: true, Exists: true}, rows, 4, false, vip.ErrStageMissing},
		{"contract total off", vip.StageInfo{Stage: 3, TotalScore: total + 1, Finalized: true, Exists: true}, rows, 3, false, ErrTotalsDiffer},
		{"duplicate row", vip.StageInfo{Stage: 3, TotalScore: total + rows[1].Amount, Finalized: true, Exists: true}, append(append([]scores.Entry(nil), rows...), rows[1]), 3, false, snapshot.ErrDuplicate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, err := BuildFromStage(context.Background(), &fakeStage{tc.info, tc.rows}, 9, tc.stage, tc.allowOpen)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if tc.want != nil {
				return
			}
			if tr.Len() != len(tc.rows) || tr.Total != total || tr.BridgeID != 9 || tr.Stage != 3 {
				t.Fatalf("tree len %d total %d bridge %d stage %d", tr.Len(), tr.Total, tr.BridgeID, tr.Stage)
			}
			a, _ := snapshot.L1Address(addrN(0))
			if i, ok := tr.Find(a); !ok {
				t.Fatalf("row 0 not a leaf (%d)", i)
			}
		})
	}
}

// fakeL1 is the L1's vip module state as its REST routes serve it: a ModuleStore with a
// stage_data table, per-stage snapshot tables, and the bridges get_bridge_infos lists.
type fakeL1 struct {
	vip     string
	tables  map[string]map[string][]byte // handle -> BCS key -> BCS value
	bridges [][2]uint64                  // (bridge id, version)
	nextID  int
}

func newFakeL1() *fakeL1 {
	return &fakeL1{vip: "0x" + strings.Repeat("0", 62) + "77", tables: map[string]map[string][]byte{"stage_data": {}}}
}

func (f *fakeL1) handle() string {
	f.nextID++
	return fmt.Sprintf("0x%064x", 0xabc000+f.nextID)
}

// submit stores a snapshot as submit_snapshot would (stage data created on first use).
func (f *fakeL1) submit(bridge, version, stage uint64, root []byte, total uint64) {
	sk := string(l1node.TableKey(stage))
	sd, ok := f.tables["stage_data"][sk]
	if !ok {
		h := f.handle()
		f.tables[h] = map[string][]byte{}
		hb, _ := hex.DecodeString(h[2:])
		// Some of StageData's leading fields, then snapshots: Table{handle, length}.
		sd = append(bytes.Repeat([]byte{7}, 57), hb...)
		sd = binary.LittleEndian.AppendUint64(sd, 0)
		f.tables["stage_data"][sk] = sd
	}
	h := "0x" + hex.EncodeToString(sd[len(sd)-40:len(sd)-8])
	v := binary.LittleEndian.AppendUint64(nil, 100)
	v = binary.LittleEndian.AppendUint64(v, 100)
	v = append(v, byte(len(root)))
	v = append(v, root...)
	v = binary.LittleEndian.AppendUint64(v, total)
	f.tables[h][string(append(l1node.TableKey(bridge), l1node.TableKey(version)...))] = v
}

func (f *fakeL1) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	notFound := func(msg string) { http.Error(w, `{"code":5,"message":"`+msg+`"}`, http.StatusNotFound) }
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/initia/move/v1/accounts/"+f.vip+"/resources/by_struct_tag":
		if r.URL.Query().Get("struct_tag") != f.vip+"::vip::ModuleStore" {
			notFound("resource not found")
			return
		}
		res, _ := json.Marshal(map[string]any{"type": f.vip + "::vip::ModuleStore", "data": map[string]any{
			"stage": "9", "stage_data": map[string]string{"handle": "stage_data", "length": "1"},
		}})
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": map[string]string{"address": f.vip, "struct_tag": f.vip + "::vip::ModuleStore", "move_resource": string(res)}})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/initia/move/v1/tables/") && strings.HasSuffix(r.URL.Path, "/entries/by_key_bytes"):
		h := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/initia/move/v1/tables/"), "/entries/by_key_bytes")
		key, err := base64.StdEncoding.DecodeString(r.URL.Query().Get("key_bytes"))
		if err != nil {
			http.Error(w, `{"code":3,"message":"key_bytes not base64"}`, http.StatusBadRequest)
			return
		}
		v, ok := f.tables[h][string(key)]
		if !ok {
			notFound("table entry not found")
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"table_entry": map[string]any{"address": h, "key_bytes": key, "value_bytes": v}})
	case r.Method == http.MethodPost && r.URL.Path == "/initia/move/v1/view":
		var q struct {
			Address, ModuleName, FunctionName string
		}
		var raw map[string]any
		if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
			http.Error(w, `{"code":3}`, http.StatusBadRequest)
			return
		}
		q.Address, _ = raw["address"].(string)
		q.ModuleName, _ = raw["module_name"].(string)
		q.FunctionName, _ = raw["function_name"].(string)
		if q.Address != f.vip || q.ModuleName != "vip" || q.FunctionName != "get_bridge_infos" {
			notFound("no such view " + q.FunctionName)
			return
		}
		var infos []map[string]string
		for _, b := range f.bridges {
			infos = append(infos, map[string]string{"bridge_id": fmt.Sprint(b[0]), "version": fmt.Sprint(b[1]), "init_stage": "1"})
		}
		data, _ := json.Marshal(infos)
		_ = json.NewEncoder(w).Encode(map[string]any{"data": string(data), "events": []any{}, "gas_used": "100"})
	default:
		notFound("no route " + r.URL.Path)
	}
}

func TestL1SnapshotAndCompare(t *testing.T) {
	rows, total := evmRows(9)
	tr, _, err := BuildFromStage(context.Background(), &fakeStage{vip.StageInfo{Stage: 4, TotalScore: total, Finalized: true, Exists: true}, rows}, 2, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	f := newFakeL1()
	f.bridges = [][2]uint64{{1, 1}, {2, 1}, {2, 3}}
	f.submit(2, 3, 4, root[:], total)          // matches
	f.submit(2, 1, 4, root[:], total+5)        // another total
	f.submit(1, 1, 4, make([]byte, 32), total) // same total, another root
	srv := httptest.NewServer(f)
	defer srv.Close()
	l1 := l1node.NewReader(srv.URL, f.vip, srv.Client())
	ctx := context.Background()

	v, err := l1.BridgeVersion(ctx, 2)
	if err != nil || v != 3 {
		t.Fatalf("bridge 2 version %d, %v; want 3", v, err)
	}
	if _, err := l1.BridgeVersion(ctx, 5); !errors.Is(err, l1node.ErrBridgeNotRegistered) {
		t.Fatalf("bridge 5: %v", err)
	}
	tests := []struct {
		name                   string
		bridge, version, stage uint64
		want                   Verdict
		wantErr                error
	}{
		{"match", 2, 3, 4, Match, nil},
		{"total differs", 2, 1, 4, TotalDiffers, nil},
		{"root differs", 1, 1, 4, RootDiffers, nil},
		{"no snapshot of the stage", 2, 3, 5, 0, l1node.ErrNoSnapshot},
		{"no snapshot of the version", 2, 2, 4, 0, l1node.ErrNoSnapshot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := l1.Snapshot(ctx, tc.bridge, tc.version, tc.stage)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				return
			}
			if snap.CreateTime != 100 || len(snap.MerkleRoot) != 32 {
				t.Fatalf("snapshot %+v", snap)
			}
			if got := Compare(tr, snap); got != tc.want {
				t.Fatalf("verdict %d, want %d", got, tc.want)
			}
		})
	}
}

func TestL1RefusesAModuleStoreWithoutStageData(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"resource": map[string]string{"move_resource": `{"type":"x","data":{"stage":"3"}}`}})
	}))
	defer srv.Close()
	_, err := l1node.NewReader(srv.URL, "0x1", srv.Client()).Snapshot(context.Background(), 1, 1, 1)
	if err == nil || !strings.Contains(err.Error(), "no stage_data table") {
		t.Fatalf("got %v", err)
	}
}

// Proof lines checked against the L1's root: our own proofs pass against our root; lines
// with a changed score, an unknown address or a broken proof fail, each named.
func TestCheckProofs(t *testing.T) {
	rows, total := evmRows(12)
	tr, _, err := BuildFromStage(context.Background(), &fakeStage{vip.StageInfo{Stage: 1, TotalScore: total, Finalized: true, Exists: true}, rows}, 1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Root()
	var buf bytes.Buffer
	if err := tr.WriteProofs(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	snap := l1node.Snapshot{BridgeID: 1, Stage: 1, MerkleRoot: root[:], TotalL2Score: total}
	pc, err := CheckProofs(strings.NewReader(good), tr, snap)
	if err != nil || pc.Lines != 12 || pc.Passed != 12 || pc.Failed != 0 || pc.Missing != 0 {
		t.Fatalf("own proofs: %+v %v", pc, err)
	}

	lines := strings.Split(strings.TrimSpace(good), "\n")
	var nonZero int
	for i, l := range lines {
		if !strings.Contains(l, `"l2_score":"0"`) {
			nonZero = i
			break
		}
	}
	stranger := `{"address":"0x` + strings.Repeat("ee", 32) + `","l2_score":"1","proof":[]}`
	scoreUp := strings.Replace(lines[nonZero], `"l2_score":"`, `"l2_score":"9`, 1)
	badProof := strings.Replace(lines[nonZero], `"proof":["`, `"proof":["ff`, 1)
	tampered := strings.Join([]string{lines[0], stranger, scoreUp, badProof}, "\n")
	covered := 2
	if nonZero == 0 {
		covered = 1
	}
	pc, err = CheckProofs(strings.NewReader(tampered), tr, snap)
	if err != nil {
		t.Fatal(err)
	}
	if pc.Lines != 4 || pc.Passed != 1 || pc.Failed != 3 || pc.Missing != 12-covered {
		t.Fatalf("tampered: %+v", pc)
	}
	for i, want := range []string{"holds no score", "says l2_score", "EINVALID_PROOF_LENGTH"} {
		if !strings.Contains(pc.Failures[i], want) {
			t.Errorf("failure %d %q, want %q", i, pc.Failures[i], want)
		}
	}
	// Against another root (the agent's), our proofs fail except zero scores (no proof).
	other := l1node.Snapshot{BridgeID: 1, Stage: 1, MerkleRoot: make([]byte, 32), TotalL2Score: total}
	pc, _ = CheckProofs(strings.NewReader(good), tr, other)
	zeros := strings.Count(good, `"l2_score":"0"`)
	if pc.Passed != zeros || pc.Failed != 12-zeros {
		t.Fatalf("against another root: %+v (zeros %d)", pc, zeros)
	}
}

// addrN is a distinct 20-byte address for each n.
func addrN(n int) []byte {
	b := make([]byte, 20)
	binary.BigEndian.PutUint64(b[12:], uint64(n)*2654435761+1)
	return b
}
