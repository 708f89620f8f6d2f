package policy

import (
	"fmt"
	"math/big"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/ext"
)

// Rule is a compiled rule.
type Rule struct {
	Name      string
	Source    *Source
	Aggregate string
	// Where, User, Amount, Multiplier, From and To are nil when the rule has none.
	Where, User, Amount, Multiplier, From, To cel.Program
	// Weight multiplies the rule's per-user value (1 when unset); Cap and Min bound it (nil:
	// none): a value below Min counts 0, one above Cap counts Cap, before the weight.
	Weight, Cap, Min *big.Rat
	// Text is the rule's expressions as written (for the formulas published with it).
	Text RuleText
}

// RuleText is a rule's CEL expressions as written ("" where the rule has none).
type RuleText struct {
	Where, User, Amount, Multiplier, From, To string
}

// costLimit bounds one expression's evaluation (CEL's cost units): a policy's expression
// is small; this stops a runaway comprehension instead of the process.
const costLimit = 100_000

// newEnv is the CEL environment every expression is checked in. Variables: args (the
// decoded event or call arguments), tx, block, log, params; the strings extension.
func newEnv() (*cel.Env, error) {
	dyn := cel.MapType(cel.StringType, cel.DynType)
	env, err := cel.NewEnv(
		cel.Variable("args", dyn),
		cel.Variable("tx", dyn),
		cel.Variable("block", dyn),
		cel.Variable("log", dyn),
		cel.Variable("event", dyn),
		cel.Variable("params", cel.MapType(cel.StringType, cel.StringType)),
		ext.Strings(),
	)
	if err != nil {
		return nil, fmt.Errorf("policy: CEL environment: %w", err)
	}
	return env, nil
}

type want int

const (
	wantBool want = iota
	wantString
	wantNumber
)

func (w want) String() string {
	return [...]string{"a bool", "a string (an address)", "a number (int, uint or double)"}[w]
}

func compileExpr(env *cel.Env, t Text, field string, w want) (cel.Program, *Error) {
	if t.V == "" {
		return nil, nil
	}
	ast, iss := env.Compile(t.V)
	if iss.Err() != nil {
		return nil, &Error{t.Pos, fmt.Sprintf("%s: %s", field, iss.Err())}
	}
	out := ast.OutputType()
	ok := out == cel.DynType
	switch w {
	case wantBool:
		ok = ok || out == cel.BoolType
	case wantString:
		ok = ok || out == cel.StringType || out == cel.BytesType
	case wantNumber:
		ok = ok || out == cel.IntType || out == cel.UintType || out == cel.DoubleType
	}
	if !ok {
		return nil, &Error{t.Pos, fmt.Sprintf("%s: %q gives %s, want %s", field, t.V, out, w)}
	}
	prg, err := env.Program(ast, cel.CostLimit(costLimit), cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return nil, &Error{t.Pos, fmt.Sprintf("%s: %v", field, err)}
	}
	return prg, nil
}

func compileRule(env *cel.Env, rs *RuleSpec, src *Source) (*Rule, Errors) {
	var errs Errors
	add := func(e *Error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	r := &Rule{Name: rs.Name.V, Source: src, Aggregate: rs.Aggregate.V, Weight: big.NewRat(1, 1),
		Text: RuleText{Where: rs.Where.V, User: rs.User.V, Amount: rs.Amount.V, Multiplier: rs.Multiplier.V, From: rs.From.V, To: rs.To.V}}
	var e *Error
	r.Where, e = compileExpr(env, rs.Where, "where", wantBool)
	add(e)
	r.User, e = compileExpr(env, rs.User, "user", wantString)
	add(e)
	r.Amount, e = compileExpr(env, rs.Amount, "amount", wantNumber)
	add(e)
	r.Multiplier, e = compileExpr(env, rs.Multiplier, "multiplier", wantNumber)
	add(e)
	r.From, e = compileExpr(env, rs.From, "from", wantString)
	add(e)
	r.To, e = compileExpr(env, rs.To, "to", wantString)
	add(e)
	need := func(t Text, field string, yes bool) {
		switch {
		case yes && t.V == "":
			add(&Error{rs.Aggregate.Pos, fmt.Sprintf("rule %q: aggregate %s needs %s", r.Name, r.Aggregate, field)})
		case !yes && t.V != "":
			add(&Error{t.Pos, fmt.Sprintf("rule %q: aggregate %s takes no %s", r.Name, r.Aggregate, field)})
		}
	}
	switch r.Aggregate {
	case AggSum:
		need(rs.User, "user", true)
		need(rs.Amount, "amount", true)
		need(rs.From, "from", false)
		need(rs.To, "to", false)
	case AggCount:
		need(rs.User, "user", true)
		need(rs.Amount, "amount", false)
		need(rs.From, "from", false)
		need(rs.To, "to", false)
	case AggDays:
		need(rs.User, "user", true)
		need(rs.Amount, "amount", false)
		need(rs.Multiplier, "multiplier", false)
		need(rs.From, "from", false)
		need(rs.To, "to", false)
	case AggTWBalance:
		need(rs.User, "user", false)
		need(rs.Amount, "amount", true)
		need(rs.Multiplier, "multiplier", false)
		need(rs.From, "from", true)
		need(rs.To, "to", true)
	default:
		add(&Error{rs.Aggregate.Pos, fmt.Sprintf("rule %q: unknown aggregate %q", r.Name, r.Aggregate)})
	}
	if w, e := parseDecimal(rs.Weight); e != nil {
		add(e)
	} else if w != nil {
		r.Weight = w
	}
	r.Cap, e = parseDecimal(rs.Cap)
	add(e)
	r.Min, e = parseDecimal(rs.Min)
	add(e)
	if r.Cap != nil && r.Min != nil && r.Cap.Cmp(r.Min) < 0 {
		add(&Error{rs.Cap.Pos, fmt.Sprintf("rule %q: cap %s is below min %s", r.Name, rs.Cap.V, rs.Min.V)})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}
