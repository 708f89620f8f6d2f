package feeroutes

import (
	"encoding/binary"
	"fmt"
	"time"

	errorsmod "cosmossdk.io/errors"
	"github.com/cosmos/cosmos-sdk/types/address"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
)

// Bridge is the OPinit bridge between a rollup and its L1: its id on the L1 and the L1's
// chain id. A rollup registered on its L1 knows it in opchild's bridge_info.
type Bridge struct {
	ID        uint64
	L1ChainID string
}

// Address is the bridge's account on the L1, as OPinit's ophost module derives it: the
// module account of "ophost" with the id's 8 big-endian bytes as its derivation key.
func (b Bridge) Address() string {
	seed := binary.BigEndian.AppendUint64(nil, b.ID)
	s, err := bech32.ConvertAndEncode("init", address.Module("ophost", seed))
	if err != nil {
		panic(err) // 32 bytes always encode
	}
	return s
}

// L1ClientID is the rollup's light client on the L1, the first one an L1 makes.
func (Bridge) L1ClientID() string { return "07-tendermint-0" }

// The bridge config a registration made by the local stack carries (OPinit's defaults for
// a new bridge: a minute between submissions, a week to finalize).
const (
	SubmissionInterval = time.Minute
	FinalizationPeriod = 7 * 24 * time.Hour
)

// Info is opchild's bridge_info after the bridge's registration, with executor the
// rollup's bridge executor and the bridge's challenger, proposer and batch submitter.
func (b Bridge) Info(executor string) BridgeInfo {
	return BridgeInfo{BridgeID: b.ID, BridgeAddr: b.Address(), L1ChainID: b.L1ChainID, L1ClientID: b.L1ClientID(),
		Config: BridgeConfig{Challenger: executor, Proposer: executor, Submitter: executor, ChainType: "INITIA",
			SubmissionInterval: SubmissionInterval, FinalizationPeriod: FinalizationPeriod, SubmissionStartHeight: 1}}
}

// BridgeInfo is opinit.opchild.v1.BridgeInfo (its BridgeConfig is ophost's): the fields a
// registration sets; the bridge is never disabled, and has no metadata or oracle here.
type BridgeInfo struct {
	BridgeID              uint64
	BridgeAddr            string
	L1ChainID, L1ClientID string
	Config                BridgeConfig
}

// BridgeConfig is opinit.ophost.v1.BridgeConfig as a new bridge has it.
type BridgeConfig struct {
	Challenger, Proposer  string
	Submitter, ChainType  string // the batch info
	SubmissionInterval    time.Duration
	FinalizationPeriod    time.Duration
	SubmissionStartHeight uint64
}

// chainTypes are ophost's BatchInfo.ChainType values.
var chainTypes = map[string]uint64{"INITIA": 1, "CELESTIA": 2}

// zeroTimeSeconds is 0001-01-01T00:00:00Z in Unix seconds: a non-nullable timestamp left
// unset (bridge_disabled_at of a bridge never disabled).
var zeroTimeSeconds = time.Time{}.Unix()

// Marshal is the bridge info in opchild's protobuf encoding, field by field as OPinit's
// gogoproto code writes it (zero scalars omitted, the disabled-at timestamp always there).
func (i BridgeInfo) Marshal() []byte {
	str := func(b []byte, num protowire.Number, s string) []byte {
		if s == "" {
			return b
		}
		return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
	}
	msg := func(b []byte, num protowire.Number, m []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), m)
	}
	varint := func(b []byte, num protowire.Number, v uint64) []byte {
		if v == 0 {
			return b
		}
		return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
	}
	seconds := func(d time.Duration) []byte { return varint(nil, 1, uint64(d/time.Second)) }

	c := i.Config
	batch := varint(str(nil, 1, c.Submitter), 2, chainTypes[c.ChainType])
	var cfg []byte
	cfg = str(cfg, 1, c.Challenger)
	cfg = str(cfg, 2, c.Proposer)
	cfg = msg(cfg, 3, batch)
	cfg = msg(cfg, 4, seconds(c.SubmissionInterval))
	cfg = msg(cfg, 5, seconds(c.FinalizationPeriod))
	cfg = varint(cfg, 6, c.SubmissionStartHeight)
	cfg = msg(cfg, 10, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(zeroTimeSeconds)))

	var out []byte
	out = varint(out, 1, i.BridgeID)
	out = str(out, 2, i.BridgeAddr)
	out = str(out, 3, i.L1ChainID)
	out = str(out, 4, i.L1ClientID)
	return msg(out, 5, cfg)
}

// UnmarshalBridgeInfo reads what Marshal wrote.
func UnmarshalBridgeInfo(b []byte) (BridgeInfo, error) {
	var i BridgeInfo
	durationOf := func(raw []byte) (time.Duration, error) {
		var d time.Duration
		err := pbwalk.EachField(raw, func(num protowire.Number, _ protowire.Type, _ []byte, v uint64) error {
			if num == 1 {
				d = time.Duration(v) * time.Second
			}
			return nil
		})
		return d, err
	}
	config := func(raw []byte) error {
		return pbwalk.EachField(raw, func(num protowire.Number, _ protowire.Type, raw []byte, v uint64) error {
			c := &i.Config
			var err error
			switch num {
			case 1:
				c.Challenger = string(raw)
			case 2:
				c.Proposer = string(raw)
			case 3:
				err = pbwalk.EachField(raw, func(num protowire.Number, _ protowire.Type, raw []byte, v uint64) error {
					switch num {
					case 1:
						c.Submitter = string(raw)
					case 2:
						for name, n := range chainTypes {
							if n == v {
								c.ChainType = name
							}
						}
					}
					return nil
				})
			case 4:
				c.SubmissionInterval, err = durationOf(raw)
			case 5:
				c.FinalizationPeriod, err = durationOf(raw)
			case 6:
				c.SubmissionStartHeight = v
			}
			return err
		})
	}
	err := pbwalk.EachField(b, func(num protowire.Number, _ protowire.Type, raw []byte, v uint64) error {
		switch num {
		case 1:
			i.BridgeID = v
		case 2:
			i.BridgeAddr = string(raw)
		case 3:
			i.L1ChainID = string(raw)
		case 4:
			i.L1ClientID = string(raw)
		case 5:
			return config(raw)
		}
		return nil
	})
	if err != nil {
		return BridgeInfo{}, fmt.Errorf("opchild bridge info: %w", err)
	}
	return i, nil
}

// MarshalBridgeInfoResponse is opinit.opchild.v1.QueryBridgeInfoResponse around the bridge
// info's encoding (field 1).
func MarshalBridgeInfoResponse(info []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), info)
}

// BridgeInfoQuery is the gRPC method of opchild's bridge info.
const BridgeInfoQuery = "/opinit.opchild.v1.Query/BridgeInfo"

// ErrBridgeInfoNotFound is opchild's NotFound for a rollup without a bridge as BaseApp
// answers it over abci_query (a gRPC NotFound becomes the SDK's key-not-found error).
var ErrBridgeInfoNotFound = errorsmod.Wrap(sdkerrors.ErrKeyNotFound, status.Error(codes.NotFound, "bridge info not found").Error())

// bridgeInfoJSON is QueryBridgeInfoResponse in the gateway's JSON, fields in opchild's
// order: uint64s as strings, durations in seconds, the unset metadata null and the unset
// timestamp at year 1.
func bridgeInfoJSON(i BridgeInfo) any {
	type batchInfo struct {
		Submitter string `json:"submitter"`
		ChainType string `json:"chain_type"`
	}
	type bridgeConfig struct {
		Challenger            string    `json:"challenger"`
		Proposer              string    `json:"proposer"`
		BatchInfo             batchInfo `json:"batch_info"`
		SubmissionInterval    string    `json:"submission_interval"`
		FinalizationPeriod    string    `json:"finalization_period"`
		SubmissionStartHeight string    `json:"submission_start_height"`
		OracleEnabled         bool      `json:"oracle_enabled"`
		Metadata              []byte    `json:"metadata"`
		BridgeDisabled        bool      `json:"bridge_disabled"`
		BridgeDisabledAt      string    `json:"bridge_disabled_at"`
	}
	type bridgeInfo struct {
		BridgeID     string       `json:"bridge_id"`
		BridgeAddr   string       `json:"bridge_addr"`
		L1ChainID    string       `json:"l1_chain_id"`
		L1ClientID   string       `json:"l1_client_id"`
		BridgeConfig bridgeConfig `json:"bridge_config"`
	}
	c := i.Config
	return struct {
		BridgeInfo bridgeInfo `json:"bridge_info"`
	}{bridgeInfo{
		BridgeID: fmt.Sprint(i.BridgeID), BridgeAddr: i.BridgeAddr, L1ChainID: i.L1ChainID, L1ClientID: i.L1ClientID,
		BridgeConfig: bridgeConfig{
			Challenger: c.Challenger, Proposer: c.Proposer, BatchInfo: batchInfo{Submitter: c.Submitter, ChainType: c.ChainType},
			SubmissionInterval:    fmt.Sprintf("%ds", int64(c.SubmissionInterval/time.Second)),
			FinalizationPeriod:    fmt.Sprintf("%ds", int64(c.FinalizationPeriod/time.Second)),
			SubmissionStartHeight: fmt.Sprint(c.SubmissionStartHeight),
			BridgeDisabledAt:      "0001-01-01T00:00:00Z",
		},
	}}
}
