package policy

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Formulas writes the policy as the forum's stage-update template asks for it: its
// formulas in mathematical notation (Markdown with Unicode symbols; CEL expressions as
// code), one per rule, the combined and floored score, its sources and exclusions, and the
// file's digest, so that a reader can recompute any score by hand and check it was made by
// this file.
func (p *Policy) Formulas() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scoring policy `%s` (sha256:%x), computed by `vipctl scores compute --policy`.", p.Name, p.Digest)
	if p.Description != "" {
		fmt.Fprintf(&b, " %s", strings.TrimSpace(p.Description))
	}
	b.WriteString("\n\nFor every address *u* and stage, over the rollup's blocks inside the L1's stage times [t₀, t₁):\n\n")

	// The score: the weighted sum of the rules, capped, floored.
	var terms []string
	for _, r := range p.Rules {
		term := fmt.Sprintf("%s(u)", r.Name)
		if r.Weight.Cmp(big.NewRat(1, 1)) != 0 {
			term = decimal(r.Weight) + " × " + term
		}
		terms = append(terms, term)
	}
	sum := strings.Join(terms, " + ")
	if len(terms) == 0 {
		sum = "0"
	}
	if p.ScoreCap != nil {
		sum = fmt.Sprintf("min(%s, %s)", sum, decimal(p.ScoreCap))
	}
	fmt.Fprintf(&b, "**score(u) = ⌊ %s ⌋**", sum)
	var notes []string
	if p.ScoreMin != nil {
		notes = append(notes, fmt.Sprintf("0 where the sum is below %s", decimal(p.ScoreMin)))
	}
	if len(p.Exclude) > 0 {
		notes = append(notes, "0 for the excluded addresses below")
	}
	notes = append(notes, "0 for the zero address and where the sum is negative; an integer within u64")
	fmt.Fprintf(&b, " (%s)\n\nwhere\n\n", strings.Join(notes, "; "))

	for _, r := range p.Rules {
		fmt.Fprintf(&b, "- %s\n", ruleFormula(r))
	}
	b.WriteString("\nSources (records in chain order: block, transaction, log or event):\n\n")
	for _, s := range p.Sources {
		fmt.Fprintf(&b, "- `%s`: %s\n", s.Name, sourceText(s))
	}
	if len(p.Exclude) > 0 {
		ex := make([]string, 0, len(p.Exclude))
		for a := range p.Exclude {
			ex = append(ex, "`"+lowerHex(a)+"`")
		}
		slices.Sort(ex)
		fmt.Fprintf(&b, "\nExcluded (never score): %s\n", strings.Join(ex, ", "))
	}
	if len(p.Params) > 0 {
		fmt.Fprintf(&b, "\nParams: %s\n", "`"+strings.Join(SortedParams(p.Params), "`, `")+"`")
	}
	b.WriteString("\nCEL arithmetic is exact (a double is the binary fraction it holds); only the final score is floored.\n")
	return b.String()
}

// ruleFormula is one rule's per-user value in notation: the aggregate over its source's
// records that the rule's user expression maps to u, then its minimum and cap.
func ruleFormula(r *Rule) string {
	t := r.Text
	cond := fmt.Sprintf("`%s` = u", t.User)
	if t.Where != "" {
		cond = fmt.Sprintf("`%s` ∧ %s", t.Where, cond)
	}
	over := fmt.Sprintf("r ∈ %s : %s", r.Source.Name, cond)
	var x string
	switch r.Aggregate {
	case AggSum:
		amt := "`" + t.Amount + "`"
		if t.Multiplier != "" {
			amt += " × `" + t.Multiplier + "`"
		}
		x = fmt.Sprintf("Σ_{%s} %s", over, amt)
	case AggCount:
		if t.Multiplier != "" {
			x = fmt.Sprintf("Σ_{%s} `%s`", over, t.Multiplier)
		} else {
			x = fmt.Sprintf("#{%s}", over)
		}
	case AggDays:
		x = fmt.Sprintf("#{⌊time(r) / 86400⌋ | r ∈ %s, %s} (distinct UTC days)", r.Source.Name, cond)
	case AggTWBalance:
		from := "the window's first block"
		if r.Source.Genesis {
			from = "genesis"
		}
		x = fmt.Sprintf("(1 / (t₁ − t₀)) ∫_{t₀}^{t₁} b_u(t) dt, where b is replayed from every r ∈ %s since %s: "+
			"b_{`%s`} += `%s` and b_{`%s`} −= `%s` at time(r) (the time-weighted average balance)", r.Source.Name, from, t.To, t.Amount, t.From, t.Amount)
	default:
		x = fmt.Sprintf("%s over %s", r.Aggregate, r.Source.Name)
	}
	name := fmt.Sprintf("x_%s(u)", r.Name)
	switch {
	case r.Cap == nil && r.Min == nil:
		return fmt.Sprintf("%s(u) = %s", r.Name, x)
	case r.Min == nil:
		return fmt.Sprintf("%s(u) = min(%s, %s), %s = %s", r.Name, name, decimal(r.Cap), name, x)
	case r.Cap == nil:
		return fmt.Sprintf("%s(u) = %s if %s ≥ %s, else 0; %s = %s", r.Name, name, name, decimal(r.Min), name, x)
	}
	return fmt.Sprintf("%s(u) = min(%s, %s) if %s ≥ %s, else 0; %s = %s", r.Name, name, decimal(r.Cap), name, decimal(r.Min), name, x)
}

// sourceText says in words what a source reads.
func sourceText(s *Source) string {
	var t string
	switch s.Kind {
	case KindLog:
		t = fmt.Sprintf("logs `%s` emitted by `%s`, ABI-decoded into `args`", s.Event.String(), lowerHex(s.Contract))
	case KindERC20:
		t = fmt.Sprintf("ERC-20 `Transfer(from, to, value)` logs of `%s`", lowerHex(s.Contract))
	case KindCall:
		t = fmt.Sprintf("successful transactions calling `%s` on `%s`, arguments decoded into `args`", s.Method.Sig, lowerHex(s.Contract))
	case KindNative:
		t = "successful transactions carrying native value (`args.from`, `args.to`, `args.value`)"
		if s.Cosmos {
			t = fmt.Sprintf("bank transfers of `%s` made by a message of a successful transaction (`args.from`, `args.to`, `args.value`)", s.Denom)
		}
	case KindMove:
		t = fmt.Sprintf("Move events `%s` of successful transactions, their JSON data in `args`", s.TypeTag)
	case KindWasm:
		t = fmt.Sprintf("`%s` events of the contract `%s`%s of successful transactions, their attributes in `args`", s.EventType, s.ContractText, attrText(s.Attrs))
	case KindCosmos:
		t = fmt.Sprintf("`%s` events%s of successful transactions, their attributes in `args`", s.EventType, attrText(s.Attrs))
	default:
		t = s.Kind + " records"
	}
	if s.Genesis {
		t += ", read from genesis"
	}
	return t
}

// attrText is " with k = v, ..." for the attribute values an event must hold ("" for none).
func attrText(attrs map[string]string) string {
	if len(attrs) == 0 {
		return ""
	}
	kv := make([]string, 0, len(attrs))
	for k, v := range attrs {
		kv = append(kv, fmt.Sprintf("`%s` = `%s`", k, v))
	}
	slices.Sort(kv)
	return " with " + strings.Join(kv, ", ")
}

// decimal writes a rational with a terminating decimal expansion (weights, caps and
// minimums are parsed from decimals) exactly; another as a fraction.
func decimal(r *big.Rat) string {
	for prec := 0; prec <= 40; prec++ {
		s := r.FloatString(prec)
		if v, ok := new(big.Rat).SetString(s); ok && v.Cmp(r) == 0 {
			return s
		}
	}
	return r.RatString()
}
