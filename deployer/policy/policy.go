// Package policy turns a published VIP scoring policy and a stage's chain activity into
// integer scores that anyone can recompute byte for byte.
//
// A policy is a YAML file (policy.schema.json, embedded as Schema) with CEL expressions:
// sources name the activity (on EVM rollups: logs by contract and event signature,
// ABI-decoded; calls by contract and function, successful only; ERC-20 and native transfers;
// on the Cosmos rollups, Move and Wasm: Move events by type tag with their JSON data, Wasm
// events by contract, action and attributes, any Cosmos event by type and attributes, and
// bank transfers of a denom; see cosmos.go), rules turn
// each record of a source into a user and an amount and aggregate them per user (sum,
// count, distinct UTC days, time-weighted balance replayed from transfers), and the
// combinators (per-rule weight, multiplier, cap and minimum; a score cap and minimum;
// excluded addresses) make one score per address.
//
// Arithmetic is exact: CEL amounts (int, uint or double) become rationals (a double is the
// dyadic rational it holds), and weights, caps and minimums are decimal strings. The final
// score is floored; a negative total scores 0; a score above u64 is an error. The output is
// ordered by address bytes, ascending; addresses scoring 0 are left out. Since every address
// appears once, ties in score need no rule of their own.
package policy

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is the JSON Schema of a policy file.
//
//go:embed policy.schema.json
var Schema []byte

// Aggregates a rule may use.
const (
	AggSum       = "sum"
	AggCount     = "count"
	AggDays      = "distinct_days"
	AggTWBalance = "time_weighted_balance"
)

// Source kinds.
const (
	KindLog      = "evm_log"
	KindCall     = "evm_call"
	KindERC20    = "erc20_transfer"
	KindNative   = "native_transfer"
	KindMove     = "move_event"
	KindWasm     = "wasm_event"
	KindCosmos   = "cosmos_event"
	erc20Event   = "Transfer(address indexed from, address indexed to, uint256 value)"
	historyStart = "genesis"
)

// Pos is where a value sits in the policy file.
type Pos struct{ Line, Col int }

// Text is a scalar of the file with its position.
type Text struct {
	V string
	Pos
}

// UnmarshalYAML keeps the scalar's text and position.
func (t *Text) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &Error{Pos{n.Line, n.Column}, "want a single value"}
	}
	t.V, t.Pos = n.Value, Pos{n.Line, n.Column}
	return nil
}

// Action is one entry of the registry profile's vip.actions.
type Action struct {
	Title       string `yaml:"title" json:"title"`
	Description string `yaml:"description" json:"description"`
}

// SourceSpec is one source as written.
type SourceSpec struct {
	Name    Text `yaml:"name"`
	History Text `yaml:"history"`
	Log     *struct {
		Contract Text `yaml:"contract"`
		Event    Text `yaml:"event"`
	} `yaml:"evm_log"`
	Call *struct {
		Contract Text `yaml:"contract"`
		Function Text `yaml:"function"`
	} `yaml:"evm_call"`
	ERC20 *struct {
		Contract Text `yaml:"contract"`
	} `yaml:"erc20_transfer"`
	Native *struct {
		Denom Text `yaml:"denom"`
	} `yaml:"native_transfer"`
	Move *struct {
		TypeTag Text `yaml:"type_tag"`
	} `yaml:"move_event"`
	Wasm *struct {
		Contract   Text            `yaml:"contract"`
		Event      Text            `yaml:"event"`
		Action     Text            `yaml:"action"`
		Attributes map[string]Text `yaml:"attributes"`
	} `yaml:"wasm_event"`
	Cosmos *struct {
		Type       Text            `yaml:"type"`
		Attributes map[string]Text `yaml:"attributes"`
	} `yaml:"cosmos_event"`
	Pos Pos `yaml:"-"`
}

// RuleSpec is one rule as written.
type RuleSpec struct {
	Name       Text `yaml:"name"`
	Source     Text `yaml:"source"`
	Where      Text `yaml:"where"`
	User       Text `yaml:"user"`
	Amount     Text `yaml:"amount"`
	Multiplier Text `yaml:"multiplier"`
	From       Text `yaml:"from"`
	To         Text `yaml:"to"`
	Aggregate  Text `yaml:"aggregate"`
	Weight     Text `yaml:"weight"`
	Cap        Text `yaml:"cap"`
	Min        Text `yaml:"min"`
}

type file struct {
	Version     int               `yaml:"policy"`
	Name        string            `yaml:"name"`
	Description string            `yaml:"description"`
	VM          Text              `yaml:"vm"`
	Actions     []Action          `yaml:"actions"`
	Params      map[string]string `yaml:"params"`
	Sources     []SourceSpec      `yaml:"sources"`
	Rules       []RuleSpec        `yaml:"rules"`
	Exclude     []Text            `yaml:"exclude"`
	Score       struct {
		Cap Text `yaml:"cap"`
		Min Text `yaml:"min"`
	} `yaml:"score"`
}

// Error is a problem of a policy file, at a line.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Pos.Line, e.Msg)
}

// Errors are every problem found in a policy file, in line order.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Policy is a checked, compiled policy.
type Policy struct {
	Name, Description, VM string
	Actions               []Action
	// Params are the parameter values in force: the file's defaults with overrides.
	Params  map[string]string
	Sources []*Source
	Rules   []*Rule
	// Exclude are the addresses that never score (Cosmos accounts by their 20 bytes).
	Exclude map[common.Address]bool
	// ScoreCap and ScoreMin bound a total score (nil: none).
	ScoreCap, ScoreMin *big.Rat
	// Digest is sha256 of the file's bytes.
	Digest [32]byte
}

// Load reads and compiles the policy file at path; params override its defaults.
func Load(path string, params map[string]string) (*Policy, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	p, err := Parse(src, params)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return p, nil
}

var (
	schemaOnce *jsonschema.Schema
	english    = message.NewPrinter(language.English)
)

func schema() (*jsonschema.Schema, error) {
	if schemaOnce != nil {
		return schemaOnce, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, fmt.Errorf("policy schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	const url = "https://vipharness.local/policy.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("policy schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("policy schema: %w", err)
	}
	schemaOnce = s
	return s, nil
}

// Parse checks a policy file's bytes against the schema and its own rules, and compiles
// its expressions. Every problem found is returned as Errors, each naming its line.
func Parse(src []byte, params map[string]string) (*Policy, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, Errors{yamlError(err)}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return nil, Errors{{Pos{1, 1}, "the file holds no YAML document"}}
	}
	doc := root.Content[0]
	inst, err := toJSON(doc)
	if err != nil {
		return nil, Errors{err.(*Error)}
	}
	s, err := schema()
	if err != nil {
		return nil, err
	}
	if verr := s.Validate(inst); verr != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(verr, &ve) {
			return nil, fmt.Errorf("check policy against its schema: %w", verr)
		}
		var out Errors
		for _, leaf := range leaves(ve) {
			n := locate(doc, leaf.InstanceLocation)
			if ap, ok := leaf.ErrorKind.(*kind.AdditionalProperties); ok && len(ap.Properties) > 0 {
				n = keyNode(n, ap.Properties[0])
			}
			where := "/" + strings.Join(leaf.InstanceLocation, "/")
			out = append(out, &Error{Pos{n.Line, n.Column}, fmt.Sprintf("%s: %s", where, leaf.ErrorKind.LocalizedString(english))})
		}
		return nil, sortErrors(out)
	}
	var f file
	if err := doc.Decode(&f); err != nil {
		return nil, Errors{yamlError(err)}
	}
	for i := range f.Sources {
		n := locate(doc, []string{"sources", strconv.Itoa(i)})
		f.Sources[i].Pos = Pos{n.Line, n.Column}
	}
	p, errs := build(&f, params)
	if len(errs) > 0 {
		return nil, sortErrors(errs)
	}
	p.Digest = sha256.Sum256(src)
	return p, nil
}

func sortErrors(es Errors) Errors {
	sort.SliceStable(es, func(i, j int) bool { return es[i].Pos.Line < es[j].Pos.Line })
	return es
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

func yamlError(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{Pos{Line: line}, m[2]}
	}
	return &Error{Msg: msg}
}

// toJSON is the YAML document as the JSON value a schema checks: maps with string keys,
// numbers as json.Number, anchors and aliases refused (a policy is read by people).
func toJSON(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{Pos{k.Line, k.Column}, "a key must be a plain name"}
			}
			if _, dup := m[k.Value]; dup {
				return nil, &Error{Pos{k.Line, k.Column}, fmt.Sprintf("key %q appears twice", k.Value)}
			}
			v, err := toJSON(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toJSON(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int", "!!float":
			if _, ok := new(big.Rat).SetString(n.Value); !ok {
				return nil, &Error{Pos{n.Line, n.Column}, fmt.Sprintf("number %q: write it as a decimal", n.Value)}
			}
			return json.Number(n.Value), nil
		case "!!bool":
			return n.Value == "true", nil
		case "!!null":
			return nil, nil
		}
		return n.Value, nil
	case yaml.AliasNode:
		return nil, &Error{Pos{n.Line, n.Column}, "aliases are not allowed in a policy"}
	}
	return nil, &Error{Pos{n.Line, n.Column}, "unexpected YAML node"}
}

// locate is the node at a JSON pointer's tokens (the deepest one found).
func locate(n *yaml.Node, path []string) *yaml.Node {
	for _, tok := range path {
		switch n.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == tok {
					n, found = n.Content[i+1], true
					break
				}
			}
			if !found {
				return n
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n
			}
			n = n.Content[i]
		default:
			return n
		}
	}
	return n
}

// keyNode is the key node of name in a mapping (the mapping itself if absent).
func keyNode(n *yaml.Node, name string) *yaml.Node {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				return n.Content[i]
			}
		}
	}
	return n
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// parseDecimal reads a non-negative decimal ("" is nil).
func parseDecimal(t Text) (*big.Rat, *Error) {
	if t.V == "" {
		return nil, nil
	}
	r, ok := new(big.Rat).SetString(t.V)
	if !ok || r.Sign() < 0 || strings.ContainsAny(t.V, "/eE") {
		return nil, &Error{t.Pos, fmt.Sprintf("%q is not a non-negative decimal", t.V)}
	}
	return r, nil
}

// resolveAddress reads an address or a $param holding one.
func resolveAddress(t Text, params map[string]string) (common.Address, *Error) {
	v := t.V
	if name, ok := strings.CutPrefix(v, "$"); ok {
		pv, ok := params[name]
		if !ok {
			return common.Address{}, &Error{t.Pos, fmt.Sprintf("$%s: no such param", name)}
		}
		v = pv
	}
	if !common.IsHexAddress(v) || !strings.HasPrefix(v, "0x") {
		return common.Address{}, &Error{t.Pos, fmt.Sprintf("%q is not a 0x-prefixed 20-byte address", v)}
	}
	return common.HexToAddress(v), nil
}

func build(f *file, overrides map[string]string) (*Policy, Errors) {
	var errs Errors
	add := func(e *Error) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	p := &Policy{Name: f.Name, Description: f.Description, VM: f.VM.V, Actions: f.Actions, Params: map[string]string{}, Exclude: map[common.Address]bool{}}
	for k, v := range f.Params {
		p.Params[k] = v
	}
	var unknown []string
	for k, v := range overrides {
		if _, ok := f.Params[k]; !ok {
			unknown = append(unknown, k)
			continue
		}
		p.Params[k] = v
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		add(&Error{Msg: fmt.Sprintf("param %s: the policy declares no such param", strings.Join(unknown, ", "))})
	}
	env, err := newEnv()
	if err != nil {
		add(&Error{Msg: err.Error()})
		return nil, errs
	}
	byName := map[string]*Source{}
	for i := range f.Sources {
		s, e := compileSource(&f.Sources[i], p.Params, p.VM)
		if e != nil {
			add(e)
			continue
		}
		if byName[s.Name] != nil {
			add(&Error{f.Sources[i].Name.Pos, fmt.Sprintf("source %q is named twice", s.Name)})
			continue
		}
		byName[s.Name] = s
		p.Sources = append(p.Sources, s)
	}
	ruleNames := map[string]bool{}
	for i := range f.Rules {
		rs := &f.Rules[i]
		if ruleNames[rs.Name.V] {
			add(&Error{rs.Name.Pos, fmt.Sprintf("rule %q is named twice", rs.Name.V)})
		}
		ruleNames[rs.Name.V] = true
		src := byName[rs.Source.V]
		if src == nil {
			add(&Error{rs.Source.Pos, fmt.Sprintf("rule %q: no source named %q", rs.Name.V, rs.Source.V)})
			continue
		}
		r, es := compileRule(env, rs, src)
		errs = append(errs, es...)
		if r != nil {
			p.Rules = append(p.Rules, r)
		}
	}
	for _, t := range f.Exclude {
		a, e := resolveAccount(t, p.Params, p.IsCosmos())
		add(e)
		if e == nil {
			p.Exclude[a] = true
		}
	}
	var e *Error
	p.ScoreCap, e = parseDecimal(f.Score.Cap)
	add(e)
	p.ScoreMin, e = parseDecimal(f.Score.Min)
	add(e)
	return p, errs
}

func compileSource(s *SourceSpec, params map[string]string, vm string) (*Source, *Error) {
	out := &Source{Name: s.Name.V, Genesis: s.History.V == historyStart}
	var e *Error
	cosmos := vm != VMEVM
	evmOnly := func(kind string) *Error {
		return &Error{s.Pos, fmt.Sprintf("source %q: %s reads EVM rollups; this policy's vm is %s (use move_event, wasm_event, cosmos_event or native_transfer with a denom)", s.Name.V, kind, vm)}
	}
	switch {
	case cosmos && s.Log != nil:
		return nil, evmOnly(KindLog)
	case cosmos && s.Call != nil:
		return nil, evmOnly(KindCall)
	case cosmos && s.ERC20 != nil:
		return nil, evmOnly(KindERC20)
	case s.Move != nil, s.Wasm != nil, s.Cosmos != nil, s.Native != nil && cosmos:
		return compileCosmosSource(s, out, params, vm)
	case s.Native != nil && s.Native.Denom.V != "":
		return nil, &Error{s.Native.Denom.Pos, fmt.Sprintf("source %q: an EVM native transfer is the transaction's value and has no denom", s.Name.V)}
	}
	switch {
	case s.Log != nil:
		out.Kind = KindLog
		if out.Contract, e = resolveAddress(s.Log.Contract, params); e != nil {
			return nil, e
		}
		ev, err := ParseEvent(s.Log.Event.V)
		if err != nil {
			return nil, &Error{s.Log.Event.Pos, err.Error()}
		}
		out.Event = ev
	case s.ERC20 != nil:
		out.Kind = KindERC20
		if out.Contract, e = resolveAddress(s.ERC20.Contract, params); e != nil {
			return nil, e
		}
		ev, err := ParseEvent(erc20Event)
		if err != nil {
			return nil, &Error{s.Pos, err.Error()}
		}
		out.Event = ev
	case s.Call != nil:
		out.Kind = KindCall
		if out.Contract, e = resolveAddress(s.Call.Contract, params); e != nil {
			return nil, e
		}
		m, err := ParseFunction(s.Call.Function.V)
		if err != nil {
			return nil, &Error{s.Call.Function.Pos, err.Error()}
		}
		out.Method = m
	case s.Native != nil:
		out.Kind = KindNative
	default:
		return nil, &Error{s.Pos, "a source needs one of evm_log, evm_call, erc20_transfer, native_transfer, move_event, wasm_event, cosmos_event"}
	}
	return out, nil
}
