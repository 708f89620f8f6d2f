package policy

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
)

// The policy's vm values.
const (
	VMEVM  = "evm"
	VMMove = "move"
	VMWasm = "wasm"
)

// Cosmos sources read the Move and Wasm rollups' transaction events (CometBFT's tx results,
// or the indexer's Cosmos txs), successful transactions only, one record per event:
//
//   - move_event: events of type "move" whose type_tag is the source's (addresses compared
//     as numbers, so 0x1 and 0x0...01 are one); args is the event's JSON data (Move writes
//     u64 and wider integers as strings: uint(args.amount), double(args.amount));
//   - wasm_event: the contract's "wasm" event (or its custom "wasm-<event>"), with the
//     action and attributes asked for; args maps each attribute to its value (the first
//     where a key repeats);
//   - cosmos_event: any event type with the attributes asked for; args as for wasm_event;
//   - native_transfer with a denom: x/bank "transfer" events emitted by a message (the
//     fee a transaction pays has no msg_index and is not a transfer here) that move the
//     denom; args {from, to, value, denom}.
//
// CEL sees, besides args: tx {hash (upper-case hex, as CometBFT prints it), from (the
// first signer, bech32, from the tx event's acc_seq), index}, block {number, time}, event
// {type, index (in its transaction), msg_index (-1 for an event no message emitted),
// attributes (every {key, value} in order), type_tag (move), contract (wasm)}. Addresses a
// user, from or to expression gives may be bech32 or 0x hex of up to 32 bytes; either way
// an account is the 20 bytes Initia's keys make (a 32-byte address must be one
// left-padded, else the record fails: guard it with where).

// IsCosmos reports whether the policy reads a Cosmos rollup (Move or Wasm).
func (p *Policy) IsCosmos() bool { return p.VM != VMEVM }

// Attr is one attribute of a Cosmos event.
type Attr struct{ Key, Value string }

// attr is the value of the first attribute named key.
func (r *Record) attr(key string) (string, bool) {
	for _, a := range r.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

var hexAddrRe = regexp.MustCompile(`0[xX][0-9a-fA-F]{1,64}`)

// normalizeTypeTag writes every address of a Move type tag as 0x and its shortest
// lower-case hex, as the MoveVM prints type tags.
func normalizeTypeTag(tag string) string {
	return hexAddrRe.ReplaceAllStringFunc(tag, func(a string) string {
		h := strings.TrimLeft(strings.ToLower(a[2:]), "0")
		if h == "" {
			h = "0"
		}
		return "0x" + h
	})
}

// resolveAccount reads an account address or a $param holding one: 0x and 40 hex digits on
// EVM; on a Cosmos rollup also bech32 or 0x and up to 64 hex digits of a left-padded account.
func resolveAccount(t Text, params map[string]string, cosmos bool) (common.Address, *Error) {
	if !cosmos {
		return resolveAddress(t, params)
	}
	v, e := paramValue(t, params)
	if e != nil {
		return common.Address{}, e
	}
	a, err := parseAccount(v)
	if err != nil {
		return common.Address{}, &Error{t.Pos, err.Error()}
	}
	return a, nil
}

func paramValue(t Text, params map[string]string) (string, *Error) {
	if name, ok := strings.CutPrefix(t.V, "$"); ok {
		pv, ok := params[name]
		if !ok {
			return "", &Error{t.Pos, fmt.Sprintf("$%s: no such param", name)}
		}
		return pv, nil
	}
	return t.V, nil
}

// parseAccount reads a Cosmos account: bech32 (any prefix) or 0x hex, of 20 bytes or of 32
// whose first 12 are zero (a Move address holding an account).
func parseAccount(s string) (common.Address, error) {
	var b []byte
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		if h == "" || len(h) > 64 {
			return common.Address{}, fmt.Errorf("%q: want 0x and 1 to 64 hex digits, or bech32", s)
		}
		if len(h) > 40 || len(h)%2 == 1 {
			h = strings.Repeat("0", 64-len(h)) + h
		}
		var err error
		if b, err = hex.DecodeString(h); err != nil {
			return common.Address{}, fmt.Errorf("%q: not hex", s)
		}
		if len(b) < common.AddressLength {
			b = common.LeftPadBytes(b, common.AddressLength)
		}
	} else {
		_, data, err := bech32.DecodeAndConvert(s)
		if err != nil {
			return common.Address{}, fmt.Errorf("%q: not an account address (bech32 or 0x hex): %v", s, err)
		}
		b = data
	}
	switch {
	case len(b) == common.AddressLength:
		return common.BytesToAddress(b), nil
	case len(b) == 32 && bytes.Equal(b[:12], make([]byte, 12)):
		return common.BytesToAddress(b[12:]), nil
	}
	return common.Address{}, fmt.Errorf("%q: %d bytes that are no account's (an account is 20 bytes, or 32 with 12 leading zeros)", s, len(b))
}

// compileCosmosSource compiles the Cosmos kinds (and native_transfer on a Cosmos rollup).
func compileCosmosSource(s *SourceSpec, out *Source, params map[string]string, vm string) (*Source, *Error) {
	out.Cosmos = true
	attrs := func(m map[string]Text) (map[string]string, *Error) {
		if len(m) == 0 {
			return nil, nil
		}
		r := make(map[string]string, len(m))
		for k, v := range m {
			pv, e := paramValue(v, params)
			if e != nil {
				return nil, e
			}
			r[k] = pv
		}
		return r, nil
	}
	var e *Error
	switch {
	case vm == VMEVM:
		return nil, &Error{s.Pos, fmt.Sprintf("source %q reads a Cosmos rollup (Move or Wasm); this policy's vm is evm", s.Name.V)}
	case s.Move != nil:
		if vm != VMMove {
			return nil, &Error{s.Move.TypeTag.Pos, fmt.Sprintf("source %q: move_event reads Move rollups; this policy's vm is %s", s.Name.V, vm)}
		}
		out.Kind = KindMove
		tag := s.Move.TypeTag.V
		if addr, rest, ok := strings.Cut(tag, "::"); ok && strings.HasPrefix(addr, "$") {
			v, e := paramValue(Text{addr, s.Move.TypeTag.Pos}, params)
			if e != nil {
				return nil, e
			}
			if !hexAddrRe.MatchString(v) || hexAddrRe.FindString(v) != v {
				return nil, &Error{s.Move.TypeTag.Pos, fmt.Sprintf("type_tag %q: %s=%q is not a Move address (0x and 1 to 64 hex digits)", tag, addr, v)}
			}
			tag = v + "::" + rest
		}
		out.EventType, out.TypeTag = "move", normalizeTypeTag(tag)
	case s.Wasm != nil:
		if vm != VMWasm {
			return nil, &Error{s.Wasm.Contract.Pos, fmt.Sprintf("source %q: wasm_event reads Wasm rollups; this policy's vm is %s", s.Name.V, vm)}
		}
		out.Kind = KindWasm
		c, e := paramValue(s.Wasm.Contract, params)
		if e != nil {
			return nil, e
		}
		if _, _, err := bech32.DecodeAndConvert(c); err != nil || strings.ToLower(c) != c {
			return nil, &Error{s.Wasm.Contract.Pos, fmt.Sprintf("source %q: contract %q is not a bech32 contract address (lower case)", s.Name.V, c)}
		}
		out.ContractText = c
		out.EventType = "wasm"
		if s.Wasm.Event.V != "" {
			out.EventType = "wasm-" + s.Wasm.Event.V
		}
		if out.Attrs, e = attrs(s.Wasm.Attributes); e != nil {
			return nil, e
		}
		if s.Wasm.Action.V != "" {
			if a, ok := out.Attrs["action"]; ok && a != s.Wasm.Action.V {
				return nil, &Error{s.Wasm.Action.Pos, fmt.Sprintf("source %q: action %q and attributes.action %q disagree", s.Name.V, s.Wasm.Action.V, a)}
			}
			if out.Attrs == nil {
				out.Attrs = map[string]string{}
			}
			out.Attrs["action"] = s.Wasm.Action.V
		}
	case s.Cosmos != nil:
		out.Kind = KindCosmos
		out.EventType = s.Cosmos.Type.V
		if out.Attrs, e = attrs(s.Cosmos.Attributes); e != nil {
			return nil, e
		}
	case s.Native != nil:
		out.Kind = KindNative
		if s.Native.Denom.V == "" {
			return nil, &Error{s.Pos, fmt.Sprintf("source %q: a native transfer on a %s rollup needs denom: the bank denom it counts, e.g. umin", s.Name.V, vm)}
		}
		out.EventType, out.Denom = "transfer", s.Native.Denom.V
	}
	return out, nil
}

// attrKeys are the source's attribute filters' keys, sorted.
func (s *Source) attrKeys() []string {
	keys := make([]string, 0, len(s.Attrs))
	for k := range s.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// matchesCosmos reports whether an event record belongs to a Cosmos source.
func (s *Source) matchesCosmos(r *Record) bool {
	if r.EventType != s.EventType {
		return false
	}
	for k, v := range s.Attrs {
		if got, ok := r.attr(k); !ok || got != v {
			return false
		}
	}
	switch s.Kind {
	case KindMove:
		tag, ok := r.attr("type_tag")
		return ok && normalizeTypeTag(tag) == s.TypeTag
	case KindWasm:
		c, ok := r.attr("_contract_address")
		return ok && c == s.ContractText
	case KindNative:
		if _, ok := r.attr("msg_index"); !ok {
			return false // the fee a transaction pays: not a transfer of the user's
		}
		amt, _ := r.attr("amount")
		_, ok := coinAmount(amt, s.Denom)
		return ok
	}
	return true
}

// coinAmount is the amount of denom in a coins string such as "100umin,5uother".
func coinAmount(coins, denom string) (*big.Int, bool) {
	for _, c := range strings.Split(coins, ",") {
		c = strings.TrimSpace(c)
		i := 0
		for i < len(c) && c[i] >= '0' && c[i] <= '9' {
			i++
		}
		if i == 0 || c[i:] != denom {
			continue
		}
		v, ok := new(big.Int).SetString(c[:i], 10)
		return v, ok
	}
	return nil, false
}

// cosmosActivation is a Cosmos event record as CEL sees it.
func cosmosActivation(src *Source, r *Record, params map[string]any) (map[string]any, error) {
	msgIndex := int64(-1)
	if v, ok := r.attr("msg_index"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("msg_index %q: %w", v, err)
		}
		msgIndex = n
	}
	list := make([]any, len(r.Attrs))
	for i, a := range r.Attrs {
		list[i] = map[string]any{"key": a.Key, "value": a.Value}
	}
	event := map[string]any{"type": r.EventType, "index": int64(r.LogIndex), "msg_index": msgIndex, "attributes": list}
	act := map[string]any{
		"tx":     map[string]any{"hash": strings.ToUpper(hex.EncodeToString(r.TxHash[:])), "from": r.Signer, "to": "", "index": int64(r.TxIndex)},
		"block":  map[string]any{"number": int64(r.Block), "time": int64(r.Time)},
		"params": params,
		"log":    map[string]any{},
		"event":  event,
	}
	switch src.Kind {
	case KindMove:
		tag, _ := r.attr("type_tag")
		event["type_tag"] = tag
		data, _ := r.attr("data")
		args, err := decodeMoveData(data)
		if err != nil {
			return nil, err
		}
		act["args"] = args
	case KindNative:
		amt, _ := r.attr("amount")
		v, ok := coinAmount(amt, src.Denom)
		if !ok {
			return nil, fmt.Errorf("transfer amount %q holds no %s", amt, src.Denom)
		}
		from, _ := r.attr("sender")
		to, _ := r.attr("recipient")
		act["args"] = map[string]any{"from": from, "to": to, "value": bigDouble(v), "denom": src.Denom}
	default:
		if src.Kind == KindWasm {
			event["contract"] = src.ContractText
		}
		args := make(map[string]any, len(r.Attrs))
		for _, a := range r.Attrs {
			if _, seen := args[a.Key]; !seen {
				args[a.Key] = a.Value
			}
		}
		act["args"] = args
	}
	return act, nil
}

// decodeMoveData decodes a Move event's JSON data: objects as maps, numbers as int (when
// integral and within int64) or double, strings as strings (Move writes u64, u128 and u256
// as strings).
func decodeMoveData(data string) (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("move event data: %w", err)
	}
	m, ok := celJSON(v).(map[string]any)
	if !ok {
		return nil, errors.New("move event data is not a JSON object")
	}
	return m, nil
}

func celJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = celJSON(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = celJSON(e)
		}
		return x
	}
	return v
}
