package evm

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/vipharness/vipharness/bindings/vipscore"
)

// ReadArtifact reads an EVM contract build: solc's .bin (the creation code as hex), or the
// JSON artifact of Foundry (bytecode.object) or Hardhat (bytecode) with its ABI. An ABI is
// checked against the official interface before anything is deployed: the constructor must
// take the initial stage (uint64), and every function and event of VipScore must be there
// with the same signature, so a mismatch is named here instead of as a failed deploy.
func ReadArtifact(b []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return readJSONArtifact(trimmed)
	}
	return decodeCreationCode(string(trimmed))
}

func decodeCreationCode(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "0x")
	if i := strings.Index(s, "__$"); i >= 0 {
		return nil, fmt.Errorf("the creation code has an unlinked library placeholder at hex offset %d: link it before deploying", i)
	}
	code, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("the creation code is not hex: %w", err)
	}
	if len(code) == 0 {
		return nil, errors.New("the creation code is empty (an interface or abstract contract?)")
	}
	return code, nil
}

// jsonArtifact holds both shapes: Hardhat's "bytecode" is a string, Foundry's an object.
type jsonArtifact struct {
	ABI      json.RawMessage `json:"abi"`
	Bytecode json.RawMessage `json:"bytecode"`
}

func readJSONArtifact(b []byte) ([]byte, error) {
	var a jsonArtifact
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("the JSON artifact does not parse: %w", err)
	}
	if len(a.Bytecode) == 0 {
		return nil, errors.New(`the JSON artifact has no "bytecode" (Hardhat: a string; Foundry: {"object": ...})`)
	}
	var hexCode string
	if err := json.Unmarshal(a.Bytecode, &hexCode); err != nil {
		var obj struct {
			Object string `json:"object"`
		}
		if err := json.Unmarshal(a.Bytecode, &obj); err != nil || obj.Object == "" {
			return nil, errors.New(`the JSON artifact's "bytecode" is neither a hex string nor an object with "object"`)
		}
		hexCode = obj.Object
	}
	code, err := decodeCreationCode(hexCode)
	if err != nil {
		return nil, err
	}
	if len(a.ABI) > 0 && string(a.ABI) != "null" {
		parsed, err := abi.JSON(bytes.NewReader(a.ABI))
		if err != nil {
			return nil, fmt.Errorf("the JSON artifact's abi does not parse: %w", err)
		}
		if err := MatchesInterface(parsed); err != nil {
			return nil, err
		}
	}
	return code, nil
}

// MatchesInterface checks an ABI against the official VipScore interface: a constructor
// taking the initial stage, and every function and event with the same signature (more is
// allowed). The error names everything that differs.
func MatchesInterface(got abi.ABI) error {
	want := vipscore.NewVipScore().GetABI()
	var problems []string
	if in := got.Constructor.Inputs; len(in) != 1 || in[0].Type.String() != "uint64" {
		problems = append(problems, fmt.Sprintf("the constructor takes (%s), not the initial stage (uint64)", argTypes(in)))
	}
	have := map[string]abi.Method{}
	for _, m := range got.Methods {
		have[m.Sig] = m
	}
	for _, m := range want.Methods {
		g, ok := have[m.Sig]
		switch {
		case !ok:
			problems = append(problems, "no function "+m.Sig)
		case argTypes(g.Outputs) != argTypes(m.Outputs):
			problems = append(problems, fmt.Sprintf("%s returns (%s), not (%s)", m.Sig, argTypes(g.Outputs), argTypes(m.Outputs)))
		}
	}
	haveEv := map[string]bool{}
	for _, e := range got.Events {
		haveEv[e.Sig] = true
	}
	for _, e := range want.Events {
		if !haveEv[e.Sig] {
			problems = append(problems, "no event "+e.Sig)
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("the ABI differs from the official VipScore interface: %s", strings.Join(problems, "; "))
	}
	return nil
}

func argTypes(args abi.Arguments) string {
	types := make([]string, len(args))
	for i, a := range args {
		types[i] = a.Type.String()
	}
	return strings.Join(types, ",")
}
