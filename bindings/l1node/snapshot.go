package l1node

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Snapshot is what the L1 holds for (bridge, version, stage): the agent's submit_snapshot.
type Snapshot struct {
	BridgeID, Version, Stage uint64
	CreateTime, UpsertTime   uint64
	// MerkleRoot is the root as submitted (the module keeps any bytes; a root that is not 32
	// bytes can prove nothing).
	MerkleRoot   []byte
	TotalL2Score uint64
}

// ErrNoSnapshot is a key the L1 holds no snapshot for (the agent has not submitted it yet).
var ErrNoSnapshot = errors.New("the L1 holds no snapshot for this bridge, version and stage")

// ErrBridgeNotRegistered is a bridge id get_bridge_infos does not list.
var ErrBridgeNotRegistered = errors.New("the bridge is not registered on the L1's vip module")

// BridgeInfo is what get_bridge_infos lists for a bridge's current version.
type BridgeInfo struct {
	BridgeID, Version, InitStage uint64
}

// BridgeVersion is the bridge's current version: the highest version get_bridge_infos
// lists for it (a bridge re-registered after deregistration gets the next version).
func (l *Reader) BridgeVersion(ctx context.Context, bridgeID uint64) (uint64, error) {
	b, err := l.Bridge(ctx, bridgeID)
	return b.Version, err
}

// Bridge is the bridge's current version and its first scored stage, from get_bridge_infos.
func (l *Reader) Bridge(ctx context.Context, bridgeID uint64) (BridgeInfo, error) {
	out := BridgeInfo{BridgeID: bridgeID}
	body, err := json.Marshal(map[string]any{
		"address": l.vip, "module_name": "vip", "function_name": "get_bridge_infos", "type_args": []string{}, "args": []string{},
	})
	if err != nil {
		return out, err
	}
	var reply struct {
		Data string `json:"data"`
	}
	if err := l.do(ctx, http.MethodPost, "/initia/move/v1/view", body, &reply); err != nil {
		return out, fmt.Errorf("read bridge %d's version: %w", bridgeID, err)
	}
	var infos []struct {
		BridgeID  string `json:"bridge_id"`
		Version   string `json:"version"`
		InitStage string `json:"init_stage"`
	}
	if err := json.Unmarshal([]byte(reply.Data), &infos); err != nil {
		return out, fmt.Errorf("read bridge %d's version: get_bridge_infos replied %q: %w", bridgeID, snippet([]byte(reply.Data)), err)
	}
	found := false
	for _, in := range infos {
		id, err1 := strconv.ParseUint(in.BridgeID, 10, 64)
		v, err2 := strconv.ParseUint(in.Version, 10, 64)
		init, err3 := strconv.ParseUint(in.InitStage, 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return out, fmt.Errorf("read bridge %d's version: bridge info %+v: not decimal u64s", bridgeID, in)
		}
		if id == bridgeID && (!found || v > out.Version) {
			out.Version, out.InitStage, found = v, init, true
		}
	}
	if !found {
		return out, fmt.Errorf("read bridge %d's version: %w", bridgeID, ErrBridgeNotRegistered)
	}
	return out, nil
}

// moduleStore reads the vip module's ModuleStore resource: its struct tag and its
// move_resource JSON.
func (l *Reader) moduleStore(ctx context.Context) (tag string, resource []byte, err error) {
	tag = l.vip + "::vip::ModuleStore"
	var res struct {
		Resource struct {
			MoveResource string `json:"move_resource"`
		} `json:"resource"`
	}
	if err := l.do(ctx, http.MethodGet, l.resourcePath(), nil, &res); err != nil {
		return tag, nil, fmt.Errorf("read %s: %w", tag, err)
	}
	return tag, []byte(res.Resource.MoveResource), nil
}

// Snapshot reads the snapshot of (bridgeID, version, stage).
func (l *Reader) Snapshot(ctx context.Context, bridgeID, version, stage uint64) (Snapshot, error) {
	snap := Snapshot{BridgeID: bridgeID, Version: version, Stage: stage}
	wrap := func(err error) error {
		return fmt.Errorf("read the L1 snapshot of bridge %d version %d stage %d: %w", bridgeID, version, stage, err)
	}
	tag, resource, err := l.moduleStore(ctx)
	if err != nil {
		return snap, wrap(err)
	}
	var ms struct {
		Data struct {
			StageData struct {
				Handle string `json:"handle"`
			} `json:"stage_data"`
		} `json:"data"`
	}
	if err := json.Unmarshal(resource, &ms); err != nil || ms.Data.StageData.Handle == "" {
		return snap, wrap(fmt.Errorf("%s has no stage_data table: %q", tag, snippet(resource)))
	}
	stageData, err := l.entry(ctx, ms.Data.StageData.Handle, TableKey(stage))
	if err != nil {
		return snap, wrap(fmt.Errorf("stage data: %w", err))
	}
	// StageData's last field is snapshots: Table{handle: address, length: u64}, so its BCS
	// ends with the 32-byte handle and 8 bytes of length.
	if len(stageData) < 40 {
		return snap, wrap(fmt.Errorf("stage data of %d bytes is too short to end with the snapshots table", len(stageData)))
	}
	handle := "0x" + hex.EncodeToString(stageData[len(stageData)-40:len(stageData)-8])
	raw, err := l.entry(ctx, handle, append(TableKey(bridgeID), TableKey(version)...))
	if err != nil {
		return snap, wrap(err)
	}
	if err := decodeSnapshot(raw, &snap); err != nil {
		return snap, wrap(err)
	}
	return snap, nil
}

// TableKey is the BCS key of a vip table entry keyed by v: a vector<u8> holding
// table_key::encode_u64(v), length 8 then v big-endian (so that table order is numeric).
func TableKey(v uint64) []byte {
	out := []byte{8, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint64(out[1:], v)
	return out
}

// decodeSnapshot reads Snapshot's BCS: create_time u64, upsert_time u64, merkle_root
// vector<u8>, total_l2_score u64.
func decodeSnapshot(b []byte, s *Snapshot) error {
	bad := fmt.Errorf("snapshot value %x is not a vip Snapshot", b)
	if len(b) < 17 {
		return bad
	}
	s.CreateTime = binary.LittleEndian.Uint64(b[0:])
	s.UpsertTime = binary.LittleEndian.Uint64(b[8:])
	n, used := binary.Uvarint(b[16:]) // ULEB128, as BCS writes lengths
	if used <= 0 || uint64(len(b)-16-used) != n+8 {
		return bad
	}
	rest := b[16+used:]
	s.MerkleRoot = append([]byte(nil), rest[:n]...)
	s.TotalL2Score = binary.LittleEndian.Uint64(rest[n:])
	return nil
}

// entry reads a table entry's BCS value by its key's BCS bytes; a missing key is
// ErrNoSnapshot's kind of not found (errNotFound).
func (l *Reader) entry(ctx context.Context, handle string, key []byte) ([]byte, error) {
	var res struct {
		TableEntry struct {
			ValueBytes []byte `json:"value_bytes"`
		} `json:"table_entry"`
	}
	path := "/initia/move/v1/tables/" + handle + "/entries/by_key_bytes?key_bytes=" + url.QueryEscape(base64.StdEncoding.EncodeToString(key))
	if err := l.do(ctx, http.MethodGet, path, nil, &res); err != nil {
		if nodehttp.NotFound(err) {
			return nil, ErrNoSnapshot
		}
		return nil, err
	}
	return res.TableEntry.ValueBytes, nil
}

func (l *Reader) do(ctx context.Context, method, path string, body []byte, out any) error {
	data, err := l.Call(ctx, method, path, body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: reply %q: %w", path, snippet(data), err)
	}
	return nil
}

func snippet(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
