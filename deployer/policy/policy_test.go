package policy

import (
	"context"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

const header = `policy: 1
name: demo
vm: evm
actions:
  - title: Trade DEMO
    description: Every DEMO sent counts.
params:
  token: "0x00000000000000000000000000000000000000aa"
`

const okSources = `sources:
  - name: transfers
    erc20_transfer:
      contract: $token
`

func TestParseRefusesWithLine(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		line     int
		contains string
	}{
		{"unknown top-level key", header + okSources + "rules:\n  - {name: r, source: transfers, aggregate: count, user: args.from}\nbogus: 1\n", 15, "additional properties 'bogus'"},
		{"CEL syntax error", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: sum\n    user: args.from\n    amount: args.value +\n", 18, "amount: ERROR"},
		{"unknown source", header + okSources + "rules:\n  - name: r\n    source: swaps\n    aggregate: count\n    user: args.from\n", 15, `no source named "swaps"`},
		{"sum without amount", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: sum\n    user: args.from\n", 16, "aggregate sum needs amount"},
		{"amount is a string", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: sum\n    user: args.from\n    amount: \"'x'\"\n", 18, "gives string, want a number"},
		{"where is not a bool", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: count\n    user: args.from\n    where: \"1 + 2\"\n", 18, "gives int, want a bool"},
		{"bad event signature", header + "sources:\n  - name: s\n    evm_log:\n      contract: $token\n      event: \"Swap(uint999 x)\"\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 13, "integer sizes"},
		{"undeclared param", header + "sources:\n  - name: s\n    erc20_transfer: {contract: $pool}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 11, "$pool: no such param"},
		{"YAML syntax", header + okSources + "rules:\n  - name: r\n   source: s\n", 13, "did not find expected"},
		{"duplicate key", header + okSources + "rules:\n  - name: r\n    name: q\n    source: transfers\n    aggregate: count\n    user: tx.from\n", 15, `"name" appears twice`},
		{"cap below min", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: count\n    user: tx.from\n    cap: 1\n    min: \"5\"\n", 18, "cap 1 is below min 5"},
		{"address pattern", header + okSources + "rules:\n  - {name: r, source: transfers, aggregate: count, user: tx.from}\nexclude:\n  - 0x12\n", 16, "/exclude/0"},
		{"two kinds in a source", header + "sources:\n  - name: s\n    native_transfer: {}\n    erc20_transfer: {contract: $token}\nrules:\n  - {name: r, source: s, aggregate: count, user: tx.from}\n", 10, "/sources/0"},
		{"twb with a user", header + okSources + "rules:\n  - name: r\n    source: transfers\n    aggregate: time_weighted_balance\n    user: tx.from\n    from: args.from\n    to: args.to\n    amount: args.value\n", 17, "takes no user"},
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

func TestParseParamsOverride(t *testing.T) {
	src := header + okSources + "rules:\n  - {name: r, source: transfers, aggregate: count, user: args.from}\n"
	p, err := Parse([]byte(src), map[string]string{"token": "0x00000000000000000000000000000000000000bb"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sources[0].Contract != common.HexToAddress("0xbb") {
		t.Fatalf("contract %s", p.Sources[0].Contract)
	}
	if _, err := Parse([]byte(src), map[string]string{"pool": "0x1"}); err == nil || !strings.Contains(err.Error(), "param pool") {
		t.Fatalf("unknown param: %v", err)
	}
	q, _ := Parse([]byte(src+"\n"), nil)
	if q.Digest == p.Digest {
		t.Fatal("two files, one digest")
	}
}

// memChain is a reader over records held in memory, filtered as the real readers filter.
type memChain []Record

func (m memChain) Read(_ context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	for i := range m {
		r := &m[i]
		if r.Block >= from && r.Block <= to && s.Matches(r) {
			if err := each(r); err != nil {
				return err
			}
		}
	}
	return nil
}

var (
	token   = common.HexToAddress("0xaa")
	alice   = common.HexToAddress("0xa11ce")
	bob     = common.HexToAddress("0xb0b")
	carol   = common.HexToAddress("0xca401")
	team    = common.HexToAddress("0x7ea3")
	zero    = common.Address{}
	erc20ev = mustEvent(erc20Event)
)

func mustEvent(sig string) *abi.Event {
	ev, err := ParseEvent(sig)
	if err != nil {
		panic(err)
	}
	return ev
}

// tokens is n whole tokens of 18 decimals.
func tokens(n float64) *big.Int {
	v, _ := new(big.Float).Mul(big.NewFloat(n), big.NewFloat(1e18)).Int(nil)
	return v
}

// transfer is an ERC-20 Transfer log in block b at time t.
func transfer(b, t uint64, logIdx uint64, from, to common.Address, v *big.Int) Record {
	data, err := abi.Arguments{{Type: erc20ev.Inputs[2].Type}}.Pack(v)
	if err != nil {
		panic(err)
	}
	return Record{Block: b, Time: t, TxHash: common.BigToHash(new(big.Int).SetUint64(b*1000 + logIdx)), LogIndex: logIdx,
		From: from, Address: token, Topics: []common.Hash{erc20ev.ID, common.BytesToHash(from[:]), common.BytesToHash(to[:])}, Data: data}
}

// window: blocks 10..20, times 1000..200000 (two UTC days and a bit).
var win = Window{Start: 1000, End: 200000, FirstBlock: 10, LastBlock: 20}

func TestCompute(t *testing.T) {
	chain := memChain{
		transfer(5, 500, 0, zero, alice, tokens(100)), // mint before the window
		transfer(10, 1000, 0, alice, bob, tokens(1.5)),
		transfer(11, 1100, 0, alice, bob, tokens(1.4)),
		transfer(12, 1200, 0, bob, carol, tokens(0.5)),
		transfer(13, 1500, 0, alice, carol, tokens(50)),
		transfer(14, 1600, 0, team, alice, tokens(7)),
		transfer(15, 1000+86400, 0, alice, bob, tokens(1)), // another UTC day
		transfer(25, 300000, 0, alice, bob, tokens(1000)),  // after the window
	}
	tests := []struct {
		name  string
		rules string
		extra string
		want  map[common.Address]uint64
		err   error
	}{
		{"sum floors the total, not each record", `
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18}`, "",
			map[common.Address]uint64{alice: 53, bob: 0, team: 7}, nil},
		{"weight and per-user cap", `
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18, weight: "2.5", cap: 10}`, "",
			map[common.Address]uint64{alice: 25, bob: 1, team: 17}, nil},
		{"minimum threshold", `
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18, min: 8}`, "",
			map[common.Address]uint64{alice: 53}, nil},
		{"count with where and exclusion", `
  - {name: n, source: transfers, aggregate: count, user: args.from, where: "args.value >= 1e18"}`, "exclude: [\"0x0000000000000000000000000000000000007ea3\"]\n",
			map[common.Address]uint64{alice: 4}, nil},
		{"count with a multiplier", `
  - {name: n, source: transfers, aggregate: count, user: args.to, multiplier: "args.value > 10e18 ? 3 : 1"}`, "",
			map[common.Address]uint64{bob: 3, carol: 4, alice: 1}, nil},
		{"distinct days", `
  - {name: d, source: transfers, aggregate: distinct_days, user: args.from, weight: 10}`, "",
			map[common.Address]uint64{alice: 20, bob: 10, team: 10}, nil},
		{"time-weighted balance from genesis", `
  - {name: hold, source: held, aggregate: time_weighted_balance, from: args.from, to: args.to, amount: args.value / 1e18}`, "",
			// balance × seconds in the window / the window's 199,000 s: alice 98.5×100 +
			// 97.1×400 + 47.1×100 + 54.1×85,800 + 53.1×112,600 = 10,674,240 -> 53.64.
			map[common.Address]uint64{alice: 53, bob: 2, carol: 50}, nil},
		{"two rules add up, score cap and min", `
  - {name: n, source: transfers, aggregate: count, user: args.from}
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18}`, "score: {cap: 40, min: \"3\"}\n",
			map[common.Address]uint64{alice: 40, team: 8}, nil},
		{"negative totals score zero", `
  - {name: net, source: transfers, aggregate: sum, user: args.from, amount: "args.from == '0x000000000000000000000000000000000000b0b0' ? 1.0 : -1.0"}`, "",
			map[common.Address]uint64{}, nil},
		{"u64 overflow is refused", `
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value}`, "",
			nil, ErrScoreOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := header + okSources + "  - name: held\n    history: genesis\n    erc20_transfer: {contract: $token}\nrules:" + tc.rules + "\n" + tc.extra
			p, err := Parse([]byte(src), nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Compute(context.Background(), p, win, chain)
			if !errors.Is(err, tc.err) {
				t.Fatalf("got %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			got := map[common.Address]uint64{}
			for i, s := range res.Scores {
				got[s.Addr] = s.Score
				if i > 0 && string(res.Scores[i-1].Addr[:]) >= string(s.Addr[:]) {
					t.Fatalf("scores not in address order: %v", res.Scores)
				}
			}
			for a, v := range tc.want {
				if v == 0 {
					delete(tc.want, a)
				}
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

// The input digest covers every record a rule reads, and only what the policy can see.
func TestInputDigest(t *testing.T) {
	src := header + okSources + "rules:\n  - {name: n, source: transfers, aggregate: count, user: args.from}\n"
	p, err := Parse([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	chain := memChain{transfer(10, 1000, 0, alice, bob, tokens(1)), transfer(11, 1100, 2, bob, alice, tokens(2))}
	a, err := Compute(context.Background(), p, win, chain)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Compute(context.Background(), p, win, append(memChain(nil), chain...))
	if a.InputDigest != b.InputDigest || a.Records["transfers"] != 2 {
		t.Fatalf("same records, digests %x %x, records %v", a.InputDigest, b.InputDigest, a.Records)
	}
	changed := append(memChain(nil), chain...)
	changed[1].Time++
	c, _ := Compute(context.Background(), p, win, changed)
	if c.InputDigest == a.InputDigest {
		t.Fatal("a changed block time left the digest alone")
	}
	// Out of order is a reader bug, refused.
	if _, err := Compute(context.Background(), p, win, memChain{chain[1], chain[0]}); err == nil || !strings.Contains(err.Error(), "chain order") {
		t.Fatalf("out of order: %v", err)
	}
}

func TestCallsAndNativeTransfers(t *testing.T) {
	m, err := ParseFunction("buy(uint256 amount, address referrer)")
	if err != nil {
		t.Fatal(err)
	}
	input, err := m.Inputs.Pack(big.NewInt(7), carol)
	if err != nil {
		t.Fatal(err)
	}
	input = append(append([]byte(nil), m.ID...), input...)
	other := append([]byte{1, 2, 3, 4}, input[4:]...)
	tok := token
	chain := memChain{
		{Block: 10, Time: 1000, From: alice, To: &tok, Data: input, Value: big.NewInt(0)},
		{Block: 11, Time: 1001, From: bob, To: &tok, Data: other, Value: big.NewInt(0)}, // another function
		{Block: 12, Time: 1002, From: bob, To: &carol, Value: tokens(3)},
		{Block: 13, Time: 1003, From: alice, To: &tok, Data: input, Value: tokens(0.5)},
	}
	src := header + `sources:
  - name: buys
    evm_call:
      contract: $token
      function: buy(uint256 amount, address referrer)
  - name: sends
    native_transfer: {}
rules:
  - {name: bought, source: buys, aggregate: sum, user: tx.from, amount: args.amount}
  - {name: referred, source: buys, aggregate: count, user: args.referrer, weight: 100}
  - {name: sent, source: sends, aggregate: sum, user: args.from, amount: args.value / 1e17}
`
	p, err := Parse([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compute(context.Background(), p, win, chain)
	if err != nil {
		t.Fatal(err)
	}
	// In address byte order: 0x…0b0b < 0x…0a11ce < 0x…0ca401.
	want := []Score{{bob, 30}, {alice, 14 + 5}, {carol, 200}}
	for i := range want {
		if i >= len(res.Scores) || res.Scores[i] != want[i] {
			t.Fatalf("got %v, want %v", res.Scores, want)
		}
	}
}

// Every example policy under fixtures/policies passes its own checks.
func TestFixturePolicies(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "policies", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		if _, err := Load(path, nil); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}
