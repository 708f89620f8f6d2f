package policy

import (
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Source is a compiled source: what to read from the chain and how to decode it.
type Source struct {
	Name string
	Kind string // KindLog, KindCall, KindERC20, KindNative, KindMove, KindWasm, KindCosmos
	// Genesis: read from block 0, not from the window's first block (balances replay).
	Genesis  bool
	Contract common.Address // logs and calls
	Event    *abi.Event     // logs and ERC-20 transfers
	Method   *abi.Method    // calls
	// Cosmos is true for a source of a Move or Wasm rollup: events of its transactions.
	Cosmos bool
	// EventType is the Cosmos event type read ("move", "wasm", "wasm-<event>", "transfer",
	// a cosmos_event's type); Attrs the attribute values an event must hold.
	EventType string
	Attrs     map[string]string
	// TypeTag is a move_event's type tag (normalizeTypeTag); ContractText a wasm_event's
	// contract (bech32); Denom a Cosmos native transfer's denom.
	TypeTag, ContractText, Denom string
}

var (
	sigRe   = regexp.MustCompile(`^\s*(?:event\s+|function\s+)?([A-Za-z_$][A-Za-z0-9_$]*)\s*\((.*)\)\s*$`)
	identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
	intRe   = regexp.MustCompile(`^(u?int)([0-9]*)(\[[0-9]*\])*$`)
)

// params parses "type [indexed] [name], ..." (elementary and array types; no tuples).
func params(list string, allowIndexed bool) (abi.Arguments, error) {
	var out abi.Arguments
	if strings.TrimSpace(list) == "" {
		return out, nil
	}
	for i, part := range strings.Split(list, ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			return nil, fmt.Errorf("argument %d is empty", i+1)
		}
		arg := abi.Argument{}
		typ := f[0]
		rest := f[1:]
		if len(rest) > 0 && rest[0] == "indexed" {
			if !allowIndexed {
				return nil, fmt.Errorf("argument %d: indexed belongs to events", i+1)
			}
			arg.Indexed, rest = true, rest[1:]
		}
		switch len(rest) {
		case 0:
			arg.Name = "arg" + strconv.Itoa(i)
		case 1:
			if !identRe.MatchString(rest[0]) {
				return nil, fmt.Errorf("argument %d: %q is not a name", i+1, rest[0])
			}
			arg.Name = rest[0]
		default:
			return nil, fmt.Errorf("argument %d: %q: want type [indexed] [name]", i+1, strings.TrimSpace(part))
		}
		if strings.HasPrefix(typ, "(") || strings.HasPrefix(typ, "tuple") {
			return nil, fmt.Errorf("argument %d: tuple types are not supported", i+1)
		}
		if m := intRe.FindStringSubmatch(typ); m != nil && m[2] != "" {
			if n, _ := strconv.Atoi(m[2]); n < 8 || n > 256 || n%8 != 0 {
				return nil, fmt.Errorf("argument %d: type %q: integer sizes are 8 to 256 in steps of 8", i+1, typ)
			}
		}
		t, err := abi.NewType(typ, "", nil)
		if err != nil {
			return nil, fmt.Errorf("argument %d: type %q: %w", i+1, typ, err)
		}
		arg.Type = t
		for _, prev := range out {
			if prev.Name == arg.Name {
				return nil, fmt.Errorf("argument %d: name %q is used twice", i+1, arg.Name)
			}
		}
		out = append(out, arg)
	}
	return out, nil
}

// ParseEvent reads a Solidity event signature with argument names, such as
// "Transfer(address indexed from, address indexed to, uint256 value)".
func ParseEvent(sig string) (*abi.Event, error) {
	m := sigRe.FindStringSubmatch(sig)
	if m == nil {
		return nil, fmt.Errorf("event %q: want Name(type [indexed] name, ...)", sig)
	}
	args, err := params(m[2], true)
	if err != nil {
		return nil, fmt.Errorf("event %q: %w", sig, err)
	}
	n := 0
	for _, a := range args {
		if a.Indexed {
			n++
		}
	}
	if n > 3 {
		return nil, fmt.Errorf("event %q: %d indexed arguments, at most 3", sig, n)
	}
	ev := abi.NewEvent(m[1], m[1], false, args)
	return &ev, nil
}

// ParseFunction reads a Solidity function signature with argument names, such as
// "buy(uint256 amount)".
func ParseFunction(sig string) (*abi.Method, error) {
	m := sigRe.FindStringSubmatch(sig)
	if m == nil {
		return nil, fmt.Errorf("function %q: want name(type name, ...)", sig)
	}
	args, err := params(m[2], false)
	if err != nil {
		return nil, fmt.Errorf("function %q: %w", sig, err)
	}
	meth := abi.NewMethod(m[1], m[1], abi.Function, "", false, false, args, nil)
	return &meth, nil
}

// decodeLog decodes a log of ev into named CEL values.
func decodeLog(ev *abi.Event, topics []common.Hash, data []byte) (map[string]any, error) {
	if len(topics) == 0 || topics[0] != ev.ID {
		return nil, errors.New("topic 0 is not the event's id")
	}
	vals := map[string]any{}
	var indexed abi.Arguments
	for _, a := range ev.Inputs {
		if a.Indexed {
			indexed = append(indexed, a)
		}
	}
	if len(topics)-1 != len(indexed) {
		return nil, fmt.Errorf("%d topics for %d indexed arguments", len(topics)-1, len(indexed))
	}
	if len(indexed) > 0 {
		if err := abi.ParseTopicsIntoMap(vals, indexed, topics[1:]); err != nil {
			return nil, fmt.Errorf("indexed arguments: %w", err)
		}
	}
	if err := ev.Inputs.NonIndexed().UnpackIntoMap(vals, data); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return celArgs(vals, ev.Inputs)
}

// decodeCall decodes a call's input (selector included) into named CEL values.
func decodeCall(m *abi.Method, input []byte) (map[string]any, error) {
	if len(input) < 4 || !bytesEqual(input[:4], m.ID) {
		return nil, errors.New("input does not start with the function's selector")
	}
	vals := map[string]any{}
	if err := m.Inputs.UnpackIntoMap(vals, input[4:]); err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return celArgs(vals, m.Inputs)
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

func celArgs(vals map[string]any, args abi.Arguments) (map[string]any, error) {
	out := make(map[string]any, len(args))
	for _, a := range args {
		v, ok := vals[a.Name]
		if !ok {
			return nil, fmt.Errorf("argument %s missing", a.Name)
		}
		out[a.Name] = celValue(v)
	}
	return out, nil
}

// celValue maps a decoded ABI value to CEL: addresses as lower-case 0x hex strings;
// integers of up to 64 bits as int or uint; wider integers as double (rounded to nearest,
// ties to even, as big.Float does); fixed and dynamic bytes and topic hashes as bytes;
// arrays as lists.
func celValue(v any) any {
	switch x := v.(type) {
	case common.Address:
		return lowerHex(x)
	case common.Hash:
		return x.Bytes()
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	case bool, string, []byte:
		return x
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return b
		}
		fallthrough
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = celValue(rv.Index(i).Interface())
		}
		return out
	}
	return fmt.Sprint(v)
}

// Matches reports whether a record belongs to the source: a log of the contract with the
// event's topic 0 (logs, ERC-20 transfers); a transaction to the contract whose input
// starts with the function's selector (calls); a transaction with a value (native
// transfers). Readers yield only successful transactions' records.
func (s *Source) Matches(r *Record) bool {
	if s.Cosmos {
		return s.matchesCosmos(r)
	}
	switch s.Kind {
	case KindLog, KindERC20:
		return r.Address == s.Contract && len(r.Topics) > 0 && r.Topics[0] == s.Event.ID
	case KindCall:
		return r.To != nil && *r.To == s.Contract && len(r.Data) >= 4 && bytesEqual(r.Data[:4], s.Method.ID)
	case KindNative:
		return r.Value != nil && r.Value.Sign() > 0
	}
	return false
}

// IsLog reports whether the source reads logs (else transactions).
func (s *Source) IsLog() bool { return s.Kind == KindLog || s.Kind == KindERC20 }
