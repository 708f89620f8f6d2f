package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRuleFormula(t *testing.T) {
	tests := []struct {
		name, rule, want string
	}{
		{"a sum with a where, a multiplier, a cap and a min",
			`{name: vol, source: transfers, aggregate: sum, where: "args.value > 0.0", user: args.from, amount: args.value / 1e18, multiplier: "2", cap: 100.5, min: 1}`,
			"vol(u) = min(x_vol(u), 100.5) if x_vol(u) ≥ 1, else 0; x_vol(u) = Σ_{r ∈ transfers : `args.value > 0.0` ∧ `args.from` = u} `args.value / 1e18` × `2`"},
		{"a count", `{name: n, source: transfers, aggregate: count, user: tx.from}`,
			"n(u) = #{r ∈ transfers : `tx.from` = u}"},
		{"a count with a multiplier and a cap", `{name: n, source: transfers, aggregate: count, user: tx.from, multiplier: "1.5", cap: 10}`,
			"n(u) = min(x_n(u), 10), x_n(u) = Σ_{r ∈ transfers : `tx.from` = u} `1.5`"},
		{"distinct days with a min", `{name: d, source: transfers, aggregate: distinct_days, user: args.to, min: 3}`,
			"d(u) = x_d(u) if x_d(u) ≥ 3, else 0; x_d(u) = #{⌊time(r) / 86400⌋ | r ∈ transfers, `args.to` = u} (distinct UTC days)"},
		{"a time-weighted balance", `{name: h, source: transfers, aggregate: time_weighted_balance, from: args.from, to: args.to, amount: args.value / 1e18}`,
			"h(u) = (1 / (t₁ − t₀)) ∫_{t₀}^{t₁} b_u(t) dt, where b is replayed from every r ∈ transfers since the window's first block: b_{`args.to`} += `args.value / 1e18` and b_{`args.from`} −= `args.value / 1e18` at time(r) (the time-weighted average balance)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Parse([]byte(header+okSources+"rules:\n  - "+tc.rule+"\n"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := ruleFormula(p.Rules[0]); got != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestFormulas(t *testing.T) {
	src := header + okSources + `rules:
  - {name: vol, source: transfers, aggregate: sum, user: args.from, amount: args.value / 1e18, weight: 0.25}
  - {name: n, source: transfers, aggregate: count, user: tx.from, weight: 5}
exclude: ["0x0000000000000000000000000000000000007ea3"]
score: {cap: 1000000, min: 10}
`
	p, err := Parse([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := p.Formulas()
	for _, want := range []string{
		"**score(u) = ⌊ min(0.25 × vol(u) + 5 × n(u), 1000000) ⌋** (0 where the sum is below 10; 0 for the excluded addresses below;",
		"- vol(u) = Σ_{r ∈ transfers : `args.from` = u} `args.value / 1e18`\n",
		"- `transfers`: ERC-20 `Transfer(from, to, value)` logs of `0x00000000000000000000000000000000000000aa`\n",
		"Excluded (never score): `0x0000000000000000000000000000000000007ea3`\n",
		"Params: `token=0x00000000000000000000000000000000000000aa`\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("formulas lack %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "sha256:") || !strings.HasPrefix(got, "Scoring policy `demo`") {
		t.Errorf("formulas do not name the policy and its digest:\n%s", got)
	}
}

// TestFormulasCosmos: a Move and a Wasm policy's sources are said as their events.
func TestFormulasCosmos(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"demo-arena-move.yaml", "Move events `0x1::arena::PlayEvent` of successful transactions"},
		{"demo-arena-wasm.yaml", "`message` events with `action` = `/cosmos.bank.v1beta1.MsgSend` of successful transactions"},
		{"demo-arena-wasm.yaml", "bank transfers of `umin` made by a message"},
	} {
		p, err := Load(filepath.Join("..", "..", "fixtures", "policies", tc.file), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Formulas(); !strings.Contains(got, tc.want) {
			t.Errorf("%s: formulas lack %q:\n%s", tc.file, tc.want, got)
		}
	}
}
