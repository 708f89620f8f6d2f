package policy

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
)

func bech(t testing.TB, a common.Address) string {
	t.Helper()
	s, err := bech32.ConvertAndEncode("init", a[:])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const moveHeader = `policy: 1
name: demo-move
vm: move
actions:
  - {title: Play, description: Every round counts.}
params:
  app: "0xcafe"
`

func TestCosmosSourcesRefuseWithLine(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		line     int
		contains string
	}{
		{"evm_log on move", moveHeader + "sources:\n  - name: s\n    evm_log: {contract: \"0x00000000000000000000000000000000000000aa\", event: \"E(uint256 x)\"}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 9, "evm_log reads EVM rollups"},
		{"native without denom", moveHeader + "sources:\n  - name: s\n    native_transfer: {}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 9, "needs denom"},
		{"wasm_event on move", moveHeader + "sources:\n  - name: s\n    wasm_event: {contract: init1qyqszqgpqyqszqgpqyqszqgpqyqszqgpjn2u0j}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "wasm_event reads Wasm rollups"},
		{"type tag shape", moveHeader + "sources:\n  - name: s\n    move_event: {type_tag: \"cafe::demo::Played\"}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "/sources/0/move_event/type_tag"},
		{"undeclared param in a type tag", moveHeader + "sources:\n  - name: s\n    move_event: {type_tag: \"$game::demo::Played\"}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "$game: no such param"},
		{"denom on evm", header + "sources:\n  - name: s\n    native_transfer: {denom: umin}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 11, "has no denom"},
		{"move_event on evm", header + "sources:\n  - name: s\n    move_event: {type_tag: \"0x1::demo::Played\"}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "this policy's vm is evm"},
		{"cosmos event without a type", moveHeader + "sources:\n  - name: s\n    cosmos_event: {attributes: {action: x}}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "missing property 'type'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), nil)
			var es Errors
			if !errors.As(err, &es) {
				t.Fatalf("got %v, want policy Errors", err)
			}
			for _, e := range es {
				if e.Pos.Line == tc.line && strings.Contains(e.Msg, tc.contains) {
					return
				}
			}
			t.Fatalf("want an error at line %d containing %q; got %v", tc.line, tc.contains, err)
		})
	}
}

func TestParseAccount(t *testing.T) {
	a := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	tests := []struct {
		in   string
		want common.Address
		err  string
	}{
		{"0x00000000000000000000000000000000000a11ce", a, ""},
		{"0xa11ce", a, ""},
		{"0x" + strings.Repeat("0", 24) + "00000000000000000000000000000000000a11ce", a, ""},
		{bech(t, a), a, ""},
		{"0x" + strings.Repeat("1", 64), common.Address{}, "no account's"},
		{"init1notbech32", common.Address{}, "not an account address"},
		{"0x", common.Address{}, "1 to 64 hex digits"},
	}
	for _, tc := range tests {
		got, err := parseAccount(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %s, %v; want %s", tc.in, got.Hex(), err, tc.want.Hex())
		}
	}
}

// ev is a Cosmos event record of block b (time = 1000 × b), tx ti, event index ei.
func ev(b, ti, ei uint64, signer, typ string, kv ...string) Record {
	r := Record{Block: b, Time: 1000 * b, TxHash: common.BigToHash(new(big.Int).SetUint64(b*100 + ti)), TxIndex: ti, LogIndex: ei, EventType: typ, Signer: signer}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Attrs = append(r.Attrs, Attr{kv[i], kv[i+1]})
	}
	return r
}

func TestComputeCosmos(t *testing.T) {
	alice32 := "0x" + strings.Repeat("0", 24) + strings.TrimPrefix(strings.ToLower(alice.Hex()), "0x")
	ab, bb, cb := bech(t, alice), bech(t, bob), bech(t, carol)
	contract, err := bech32.ConvertAndEncode("init", common.HexToHash("0xc0417ac7").Bytes())
	if err != nil {
		t.Fatal(err)
	}
	chain := memChain{
		ev(5, 0, 3, ab, "transfer", "recipient", bb, "sender", bech(t, team), "amount", "100umin", "msg_index", "0"),
		ev(10, 0, 2, ab, "move", "type_tag", "0xcafe::demo::Played", "data", `{"player":"`+alice32+`","points":"12"}`),
		ev(10, 0, 3, ab, "move", "type_tag", "0xcafe::demo::Other", "data", `{"player":"`+alice32+`"}`),
		ev(11, 1, 0, bb, "transfer", "recipient", "init1feecollector", "sender", bb, "amount", "7umin"), // a fee: no msg_index
		ev(11, 1, 4, bb, "transfer", "recipient", cb, "sender", bb, "amount", "30umin,5uother", "msg_index", "0"),
		ev(12, 0, 1, cb, "wasm", "_contract_address", contract, "action", "play", "player", cb),
		ev(12, 0, 2, cb, "wasm", "_contract_address", contract, "action", "stake", "player", cb),
		ev(12, 1, 1, ab, "wasm-bet", "_contract_address", contract, "player", ab, "amount", "40"),
		ev(13, 0, 1, ab, "message", "action", "/cosmos.bank.v1beta1.MsgSend", "sender", ab, "msg_index", "0"),
		ev(25, 0, 1, ab, "move", "type_tag", "0xcafe::demo::Played", "data", `{"player":"`+alice32+`","points":"1000"}`), // after the window
	}
	w := Window{Start: 10000, End: 20000, FirstBlock: 10, LastBlock: 20}
	tests := []struct {
		name, vm, sources, rules string
		want                     map[common.Address]uint64
	}{
		{"move events by type tag, data decoded", "move", `
  - name: plays
    move_event: {type_tag: "$app::demo::Played"}`, `
  - {name: pts, source: plays, aggregate: sum, user: args.player, amount: uint(args.points), weight: 2}`,
			map[common.Address]uint64{alice: 24}},
		{"native transfers skip fees and other denoms; balances replay from genesis", "move", `
  - name: sends
    native_transfer: {denom: umin}
  - name: held
    history: genesis
    native_transfer: {denom: umin}`, `
  - {name: sent, source: sends, aggregate: sum, user: args.from, amount: args.value}
  - {name: hold, source: held, aggregate: time_weighted_balance, from: args.from, to: args.to, amount: args.value / 10.0}`,
			// bob sent 30 in the window (the team's 100 to him at block 5 is before it) and
			// held 100 for 1,000 s and 70 for 9,000 s of the 10,000 (7.3 points); carol 30
			// for 9,000 s (2.7); the team's negative balance scores nothing.
			map[common.Address]uint64{bob: 37, carol: 2}},
		{"wasm events by contract and action, and custom events", "wasm", `
  - name: plays
    wasm_event: {contract: $game, action: play}
  - name: bets
    wasm_event: {contract: $game, event: bet}`, `
  - {name: n, source: plays, aggregate: count, user: args.player, weight: 3}
  - {name: b, source: bets, aggregate: sum, user: tx.from, amount: "double(args.amount)"}`,
			map[common.Address]uint64{carol: 3, alice: 40}},
		{"generic events by type and attribute, msg_index in CEL", "wasm", `
  - name: sends
    cosmos_event: {type: message, attributes: {action: /cosmos.bank.v1beta1.MsgSend}}`, `
  - {name: n, source: sends, aggregate: count, user: args.sender, where: "event.msg_index == 0 && event.index == 1", weight: 5}`,
			map[common.Address]uint64{alice: 5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(moveHeader, "vm: move", "vm: "+tc.vm, 1) + "  game: " + contract + "\nsources:" + tc.sources + "\nrules:" + tc.rules + "\n"
			p, err := Parse([]byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Compute(context.Background(), p, w, chain)
			if err != nil {
				t.Fatal(err)
			}
			got := map[common.Address]uint64{}
			for _, s := range res.Scores {
				got[s.Addr] = s.Score
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for a, v := range tc.want {
				if got[a] != v {
					t.Fatalf("%s: got %d, want %d (all %v)", a.Hex(), got[a], v, got)
				}
			}
		})
	}
}

// A Cosmos record's digest covers its event: the same position with another attribute value
// is another input.
func TestCosmosDigestCoversEvents(t *testing.T) {
	src := moveHeader + "sources:\n  - name: e\n    cosmos_event: {type: transfer}\nrules:\n  - {name: n, source: e, aggregate: count, user: tx.from}\n"
	p, err := Parse([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := Window{Start: 1, End: 100000, FirstBlock: 1, LastBlock: 50}
	a := ev(10, 0, 1, bech(t, alice), "transfer", "amount", "1umin")
	b := a
	b.Attrs = []Attr{{"amount", "2umin"}}
	ra, err := Compute(context.Background(), p, w, memChain{a})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Compute(context.Background(), p, w, memChain{b})
	if err != nil {
		t.Fatal(err)
	}
	if ra.InputDigest == rb.InputDigest {
		t.Fatal("two events, one digest")
	}
}

func TestNormalizeTypeTag(t *testing.T) {
	for in, want := range map[string]string{
		"0x00CAFE::demo::Played":                     "0xcafe::demo::Played",
		"0x1::coin::CoinStore<0x0001::native::Coin>": "0x1::coin::CoinStore<0x1::native::Coin>",
		"0x0::m::E": "0x0::m::E",
	} {
		if got := normalizeTypeTag(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// A source's tx_search query narrows the height range only where it cannot miss an event:
// exact attribute values and the contract the chain writes as the policy does, a Move type
// tag by its presence only (the chain may print its address otherwise).
func TestSourceQuery(t *testing.T) {
	contract, err := bech32.ConvertAndEncode("init", common.HexToHash("0xc0417ac7").Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src  string
		want string
	}{
		{"move_event: {type_tag: \"0xcafe::demo::Played\"}", "tx.height >= 1 AND tx.height <= 20 AND move.type_tag EXISTS"},
		{"wasm_event: {contract: " + contract + ", action: play}", "tx.height >= 1 AND tx.height <= 20 AND wasm._contract_address = '" + contract + "' AND wasm.action = 'play'"},
		{"wasm_event: {contract: " + contract + ", event: bet}", "tx.height >= 1 AND tx.height <= 20 AND wasm-bet._contract_address = '" + contract + "'"},
		{"cosmos_event: {type: message, attributes: {sender: \"it's\", action: x}}", "tx.height >= 1 AND tx.height <= 20 AND message.action = 'x' AND message.sender = 'it\\'s'"},
		{"native_transfer: {denom: umin}", "tx.height >= 1 AND tx.height <= 20"},
	}
	for _, tc := range tests {
		vm := "move"
		if strings.HasPrefix(tc.src, "wasm") {
			vm = "wasm"
		}
		src := strings.Replace(moveHeader, "vm: move", "vm: "+vm, 1) + "sources:\n  - name: s\n    " + tc.src + "\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n"
		p, err := Parse([]byte(src), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got := p.Sources[0].query(0, 20); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}
