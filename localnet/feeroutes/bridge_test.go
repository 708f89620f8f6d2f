package feeroutes

import (
	"encoding/base64"
	"reflect"
	"testing"
)

// The bytes a real minitiad v1.2.11 (miniwasm) answers for QueryBridgeInfo after a genesis
// that registers bridge 7 of initiation-2 with executor init1lfff... (measured 2026-11-29).
const realBridgeInfoResponse = "CokCCAcSP2luaXQxcTB5OGdwOThkOG45Mjcwdjc5djJ1ZHVwYW5ycDNwZTJ4bTU0amNmaHR1NHBmOXB5cTRmc3E2M2phdBoMaW5pdGlhdGlvbi0yIg8wNy10ZW5kZXJtaW50LTAqpAEKK2luaXQxbGZmZm54ajMwZmpwMDRmZ25xYWp6YXZ2a3JhcnN4ejB1N3B6YXASK2luaXQxbGZmZm54ajMwZmpwMDRmZ25xYWp6YXZ2a3JhcnN4ejB1N3B6YXAaLworaW5pdDFsZmZmbnhqMzBmanAwNGZnbnFhanphdnZrcmFyc3h6MHU3cHphcBABIgIIPCoECID1JDABUgsIgJK4w5j+////AQ=="

func TestBridgeInfoEncodesAsOpchildDoes(t *testing.T) {
	info := Bridge{ID: 7, L1ChainID: "initiation-2"}.Info("init1lfffnxj30fjp04fgnqajzavvkrarsxz0u7pzap")
	got := base64.StdEncoding.EncodeToString(MarshalBridgeInfoResponse(info.Marshal()))
	if got != realBridgeInfoResponse {
		t.Fatalf("QueryBridgeInfoResponse\n got %s\nwant %s", got, realBridgeInfoResponse)
	}
	back, err := UnmarshalBridgeInfo(info.Marshal())
	if err != nil || !reflect.DeepEqual(back, info) {
		t.Fatalf("read back %+v (%v), want %+v", back, err, info)
	}
}
