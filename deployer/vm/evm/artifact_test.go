package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func committedArtifacts(t *testing.T) (abiJSON []byte, bin string) {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "contracts", "evm", "artifacts")
	a, err := os.ReadFile(filepath.Join(dir, "VipScore.abi.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "VipScore.bin"))
	if err != nil {
		t.Fatal(err)
	}
	return a, strings.TrimSpace(string(b))
}

// withoutEntry drops the ABI entries named name (and of kind typ).
func withoutEntry(t *testing.T, abiJSON []byte, typ, name string) []byte {
	t.Helper()
	var entries []map[string]any
	if err := json.Unmarshal(abiJSON, &entries); err != nil {
		t.Fatal(err)
	}
	var kept []map[string]any
	for _, e := range entries {
		if e["type"] == typ && (name == "" || e["name"] == name) {
			continue
		}
		kept = append(kept, e)
	}
	out, _ := json.Marshal(kept)
	return out
}

// withOutputs gives the function name one output of type typ.
func withOutputs(t *testing.T, abiJSON []byte, name, typ string) []byte {
	t.Helper()
	var entries []map[string]any
	if err := json.Unmarshal(abiJSON, &entries); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e["type"] == "function" && e["name"] == name {
			e["outputs"] = []map[string]any{{"name": "", "type": typ, "internalType": typ}}
		}
	}
	out, _ := json.Marshal(entries)
	return out
}

func TestReadArtifact(t *testing.T) {
	abiJSON, bin := committedArtifacts(t)
	want, _ := hex.DecodeString(strings.TrimPrefix(bin, "0x"))
	hardhat := func(a []byte, code string) []byte {
		out, _ := json.Marshal(map[string]any{"contractName": "VipScore", "abi": json.RawMessage(a), "bytecode": "0x" + code})
		return out
	}
	foundry := func(a []byte, code string) []byte {
		out, _ := json.Marshal(map[string]any{"abi": json.RawMessage(a), "bytecode": map[string]any{"object": "0x" + code, "linkReferences": map[string]any{}}})
		return out
	}
	for _, c := range []struct {
		name, wantErr string
		in            []byte
	}{
		{"solc .bin", "", []byte(bin + "\n")},
		{"solc .bin with 0x", "", []byte("0x" + bin)},
		{"Hardhat artifact", "", hardhat(abiJSON, bin)},
		{"Foundry artifact", "", foundry(abiJSON, bin)},
		{"Foundry artifact without an ABI", "", []byte(`{"bytecode":{"object":"0x` + bin + `"}}`)},
		{"no updateScores", "no function updateScores(uint64,address[],uint64[])", foundry(withoutEntry(t, abiJSON, "function", "updateScores"), bin)},
		{"no UpdateScore event", "no event UpdateScore(address,uint64,uint64,uint64)", hardhat(withoutEntry(t, abiJSON, "event", "UpdateScore"), bin)},
		{"constructor without the stage", "the constructor takes (), not the initial stage (uint64)", hardhat(withoutEntry(t, abiJSON, "constructor", ""), bin)},
		{"getScores returning something else", "getScores(uint64,uint64,uint64) returns (uint64[])", hardhat(withOutputs(t, abiJSON, "getScores", "uint64[]"), bin)},
		{"unlinked library", "unlinked library placeholder", []byte(bin[:40] + "__$0123456789abcdef0123456789abcdef01$__" + bin[40:])},
		{"not hex", "not hex", []byte("zz" + bin)},
		{"empty bytecode", "empty", []byte(`{"abi":[],"bytecode":"0x"}`)},
		{"bytecode of another shape", `neither a hex string nor an object`, []byte(`{"bytecode":42}`)},
		{"no bytecode", `no "bytecode"`, []byte(`{"abi":[]}`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadArtifact(c.in)
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("creation code of %d bytes, want the committed %d", len(got), len(want))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}
