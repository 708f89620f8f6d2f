package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"math/big"
	"slices"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Record is one item of chain activity a source yields: a log (with its transaction's
// sender and recipient) or a successful transaction (a call or a native transfer).
type Record struct {
	Block   uint64
	Time    uint64 // the block's timestamp, unix seconds
	TxHash  common.Hash
	TxIndex uint64
	// LogIndex is the log's index in its block; 0 for a transaction.
	LogIndex uint64
	From     common.Address
	// To is the transaction's recipient; nil for a contract creation.
	To *common.Address
	// Value is the transaction's value (calls and native transfers; nil for logs).
	Value *big.Int
	// Address is the log's emitter (logs) or the called contract (calls).
	Address common.Address
	Topics  []common.Hash
	// Data is the log's data (logs) or the transaction's input (calls).
	Data []byte
	// A Cosmos event (Move and Wasm rollups): its type and attributes in order; LogIndex is
	// its index among its transaction's events, Signer the transaction's first signer as the
	// chain prints it (bech32).
	EventType string
	Attrs     []Attr
	Signer    string
}

func (r *Record) at() string {
	return fmt.Sprintf("block %d tx %s log %d", r.Block, r.TxHash.Hex(), r.LogIndex)
}

// Window is the stage's span: the L1's start and end times (end excluded) and the rollup
// blocks whose timestamps fall inside them.
type Window struct {
	Start, End            uint64 // unix seconds
	FirstBlock, LastBlock uint64
}

// Reader reads a source's records between two blocks (both included), in chain order:
// block, then transaction index, then log index.
type Reader interface {
	Read(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error
}

// Score is one address's integer score.
type Score struct {
	Addr  common.Address
	Score uint64
}

// Result is what Compute returns: the scores in address order and the digest of every
// record it read, in the order read (source by source, in the policy's order).
type Result struct {
	Scores      []Score
	InputDigest [32]byte
	// Records read per source, by name.
	Records map[string]int
}

// ErrScoreOverflow is a score above u64's range after the policy's caps.
var ErrScoreOverflow = errors.New("a score exceeds u64 (18446744073709551615): cap it in the policy")

// Compute reads every source of the window from r and scores it.
func Compute(ctx context.Context, p *Policy, w Window, r Reader) (*Result, error) {
	if w.End <= w.Start || w.LastBlock < w.FirstBlock {
		return nil, fmt.Errorf("compute scores: empty window %+v", w)
	}
	d := sha256.New()
	res := &Result{Records: map[string]int{}}
	values := make([]map[common.Address]*big.Rat, len(p.Rules))
	params := map[string]any{}
	for k, v := range p.Params {
		params[k] = v
	}
	for _, src := range p.Sources {
		var rules []int
		for i, rule := range p.Rules {
			if rule.Source == src {
				rules = append(rules, i)
			}
		}
		if len(rules) == 0 {
			continue // a source no rule reads is not read
		}
		states := make([]*state, len(rules))
		for i, ri := range rules {
			states[i] = newState(p.Rules[ri], w)
		}
		from := w.FirstBlock
		if src.Genesis {
			from = 0
		}
		writeString(d, src.Name)
		var last Record // its position only: a reader may reuse the record it hands over
		n := 0
		err := r.Read(ctx, src, from, w.LastBlock, func(rec *Record) error {
			if n > 0 && !inOrder(&last, rec) {
				return fmt.Errorf("record at %s came after %s: the reader broke chain order", rec.at(), last.at())
			}
			if rec.Block < from || rec.Block > w.LastBlock {
				return fmt.Errorf("record at %s is outside blocks %d..%d", rec.at(), from, w.LastBlock)
			}
			last = Record{Block: rec.Block, TxIndex: rec.TxIndex, LogIndex: rec.LogIndex, TxHash: rec.TxHash}
			n++
			digestRecord(d, rec)
			act, err := activation(src, rec, params) // once for every expression of the record
			if err != nil {
				return fmt.Errorf("source %s: decode %s: %w", src.Name, rec.at(), err)
			}
			for _, st := range states {
				if err := st.add(rec, act); err != nil {
					return fmt.Errorf("rule %s: %s: %w", st.rule.Name, rec.at(), err)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("compute scores: source %s: %w", src.Name, err)
		}
		binary.Write(d, binary.BigEndian, uint64(n)) //nolint:errcheck // a hash never fails
		res.Records[src.Name] = n
		for i, ri := range rules {
			values[ri] = states[i].finish()
		}
	}
	copy(res.InputDigest[:], d.Sum(nil))
	scores, err := combine(p, values)
	if err != nil {
		return nil, fmt.Errorf("compute scores: %w", err)
	}
	res.Scores = scores
	return res, nil
}

func inOrder(a, b *Record) bool {
	if a.Block != b.Block {
		return a.Block < b.Block
	}
	if a.TxIndex != b.TxIndex {
		return a.TxIndex < b.TxIndex
	}
	return a.LogIndex < b.LogIndex || (a.LogIndex == b.LogIndex && a.TxHash != b.TxHash)
}

func writeString(h hash.Hash, s string) {
	binary.Write(h, binary.BigEndian, uint64(len(s))) //nolint:errcheck
	h.Write([]byte(s))
}

// digestRecord hashes the fields of a record that a policy can see, fixed-width or
// length-prefixed, so that two readers feeding the same records give the same digest.
func digestRecord(h hash.Hash, r *Record) {
	var b [8]byte
	u := func(v uint64) { binary.BigEndian.PutUint64(b[:], v); h.Write(b[:]) }
	u(r.Block)
	u(r.Time)
	h.Write(r.TxHash[:])
	u(r.TxIndex)
	u(r.LogIndex)
	h.Write(r.From[:])
	if r.To == nil {
		h.Write([]byte{0})
	} else {
		h.Write([]byte{1})
		h.Write(r.To[:])
	}
	if r.Value == nil {
		u(math.MaxUint64)
	} else {
		vb := r.Value.Bytes()
		u(uint64(len(vb)))
		h.Write(vb)
	}
	h.Write(r.Address[:])
	u(uint64(len(r.Topics)))
	for _, t := range r.Topics {
		h.Write(t[:])
	}
	u(uint64(len(r.Data)))
	h.Write(r.Data)
	if r.EventType == "" {
		return // an EVM record: its digest stays what it was before Cosmos records existed
	}
	writeString(h, r.EventType)
	u(uint64(len(r.Attrs)))
	for _, a := range r.Attrs {
		writeString(h, a.Key)
		writeString(h, a.Value)
	}
	writeString(h, r.Signer)
}

// lowerHex is 0x and the address's 40 lower-case hex digits (no checksum to hash).
func lowerHex(a common.Address) string {
	var buf [2 + 2*common.AddressLength]byte
	buf[0], buf[1] = '0', 'x'
	hex.Encode(buf[2:], a[:])
	return string(buf[:])
}

func bigDouble(v *big.Int) float64 {
	f, _ := new(big.Float).SetInt(v).Float64()
	return f
}

// activation is the record as CEL sees it.
func activation(src *Source, r *Record, params map[string]any) (interpreter.Activation, error) {
	if src.Cosmos {
		vars, err := cosmosActivation(src, r, params)
		if err != nil {
			return nil, err
		}
		return interpreter.NewActivation(vars)
	}
	v := &evmVars{r: r, params: params, args: emptyVars}
	switch src.Kind {
	case KindLog, KindERC20:
		v.log = true
		args, err := decodeLog(src.Event, r.Topics, r.Data)
		if err != nil {
			return nil, err
		}
		v.args = args
	case KindCall:
		args, err := decodeCall(src.Method, r.Data)
		if err != nil {
			return nil, err
		}
		v.args = args
	case KindNative:
		v.args = map[string]any{"from": lowerHex(r.From), "to": v.txTo(), "value": v.value()}
	}
	return v, nil
}

// emptyVars is a variable with no fields (log outside a log source, event on EVM).
var emptyVars = map[string]any{}

// evmVars is an EVM record as CEL sees it: args (decoded up front, so a record that does
// not decode fails whatever the expressions read), and tx, block and log made the first
// time an expression reads them: most policies read two or three fields of a record, and
// a million records are scored per stage.
type evmVars struct {
	r                *Record
	params, args     map[string]any
	log              bool // the record is a log
	tx, block, logVs map[string]any
}

func (v *evmVars) txTo() string {
	if v.r.To == nil {
		return ""
	}
	return lowerHex(*v.r.To)
}

func (v *evmVars) value() any {
	if v.r.Value == nil {
		return nil
	}
	return bigDouble(v.r.Value)
}

// ResolveName is the variable name's value.
func (v *evmVars) ResolveName(name string) (any, bool) {
	switch name {
	case "args":
		return v.args, true
	case "params":
		return v.params, true
	case "tx":
		if v.tx == nil {
			r := v.r
			v.tx = map[string]any{"hash": r.TxHash.Hex(), "from": lowerHex(r.From), "to": v.txTo(), "index": int64(r.TxIndex)}
			if r.Value != nil {
				v.tx["value"] = v.value()
			}
		}
		return v.tx, true
	case "block":
		if v.block == nil {
			v.block = map[string]any{"number": int64(v.r.Block), "time": int64(v.r.Time)}
		}
		return v.block, true
	case "log":
		if !v.log {
			return emptyVars, true
		}
		if v.logVs == nil {
			v.logVs = map[string]any{"address": lowerHex(v.r.Address), "index": int64(v.r.LogIndex)}
		}
		return v.logVs, true
	case "event":
		return emptyVars, true
	}
	return nil, false
}

// Parent is nil: the record's variables are all there is.
func (v *evmVars) Parent() interpreter.Activation { return nil }

// state is one rule's per-user accumulation over a source's records.
type state struct {
	rule *Rule
	w    Window
	sums map[common.Address]*dyadic
	days map[common.Address]map[uint64]bool
	// time-weighted balance, per holder.
	held map[common.Address]*holding
}

// holding is a holder's balance, the time it was last accrued to, and the integral of the
// balance over the window's seconds so far.
type holding struct {
	bal, integral dyadic
	last          uint64
}

func newState(r *Rule, w Window) *state {
	return &state{rule: r, w: w, sums: map[common.Address]*dyadic{}, days: map[common.Address]map[uint64]bool{},
		held: map[common.Address]*holding{}}
}

func (s *state) inWindow(r *Record) bool {
	return r.Block >= s.w.FirstBlock && r.Block <= s.w.LastBlock
}

func (s *state) add(rec *Record, act interpreter.Activation) error {
	r := s.rule
	if r.Aggregate != AggTWBalance && !s.inWindow(rec) {
		return nil // read for history only
	}
	if r.Where != nil {
		v, _, err := r.Where.Eval(act)
		if err != nil {
			return fmt.Errorf("where: %w", err)
		}
		b, ok := v.(types.Bool)
		if !ok {
			return fmt.Errorf("where gave %s, want a bool", v.Type().TypeName())
		}
		if !b {
			return nil
		}
	}
	evalNum := func(name string) (*dyadic, error) {
		prg := r.Amount
		if name == "multiplier" {
			prg = r.Multiplier
		}
		v, _, err := prg.Eval(act)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		n, err := number(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return n, nil
	}
	if r.Aggregate == AggTWBalance {
		from, err := evalAddr(r.From, act, "from", r.Source.Cosmos)
		if err != nil {
			return err
		}
		to, err := evalAddr(r.To, act, "to", r.Source.Cosmos)
		if err != nil {
			return err
		}
		amt, err := evalNum("amount")
		if err != nil {
			return err
		}
		if to != (common.Address{}) {
			s.move(to, rec.Time, amt)
		}
		if from != (common.Address{}) {
			amt = amt.clone()
			amt.neg()
			s.move(from, rec.Time, amt)
		}
		return nil
	}
	user, err := evalAddr(r.User, act, "user", r.Source.Cosmos)
	if err != nil {
		return err
	}
	if user == (common.Address{}) {
		return nil // the zero address never scores
	}
	switch r.Aggregate {
	case AggDays:
		if s.days[user] == nil {
			s.days[user] = map[uint64]bool{}
		}
		s.days[user][rec.Time/86400] = true
		return nil
	case AggCount:
		v := &dyadic{}
		v.m.SetInt64(1)
		if r.Multiplier != nil {
			if v, err = evalNum("multiplier"); err != nil {
				return err
			}
		}
		s.addSum(user, v)
	case AggSum:
		v, err := evalNum("amount")
		if err != nil {
			return err
		}
		if r.Multiplier != nil {
			m, err := evalNum("multiplier")
			if err != nil {
				return err
			}
			v.mul(m)
		}
		s.addSum(user, v)
	}
	return nil
}

func (s *state) addSum(user common.Address, v *dyadic) {
	if cur, ok := s.sums[user]; ok {
		cur.add(v)
		return
	}
	s.sums[user] = v
}

func (s *state) clamp(t uint64) uint64 { return min(max(t, s.w.Start), s.w.End) }

// accrue adds balance × the seconds since the holder's last change that lie in the window.
func (s *state) accrue(h *holding, t uint64) {
	if dt := s.clamp(t) - s.clamp(h.last); dt > 0 && h.bal.sign() != 0 {
		inc := h.bal.clone()
		inc.mulUint(dt)
		h.integral.add(inc)
	}
	h.last = t
}

func (s *state) move(user common.Address, t uint64, delta *dyadic) {
	h, ok := s.held[user]
	if !ok {
		h = &holding{last: t}
		s.held[user] = h
	}
	s.accrue(h, t)
	h.bal.add(delta)
}

// finish is the rule's per-user value.
func (s *state) finish() map[common.Address]*big.Rat {
	switch s.rule.Aggregate {
	case AggDays:
		out := make(map[common.Address]*big.Rat, len(s.days))
		for u, d := range s.days {
			out[u] = new(big.Rat).SetInt64(int64(len(d)))
		}
		return out
	case AggTWBalance:
		span := new(big.Rat).SetUint64(s.w.End - s.w.Start)
		out := map[common.Address]*big.Rat{}
		for u, h := range s.held {
			s.accrue(h, s.w.End)
			if h.integral.sign() != 0 {
				r := h.integral.rat()
				out[u] = r.Quo(r, span)
			}
		}
		return out
	}
	out := make(map[common.Address]*big.Rat, len(s.sums))
	for u, v := range s.sums {
		out[u] = v.rat()
	}
	return out
}

// evalAddr evaluates an address expression: a 0x string of 20 bytes (any case), or 20
// bytes, or 32 bytes whose first 12 are zero (an address as a topic or word holds it).
func evalAddr(prg cel.Program, act interpreter.Activation, name string, cosmos bool) (common.Address, error) {
	v, _, err := prg.Eval(act)
	if err != nil {
		return common.Address{}, fmt.Errorf("%s: %w", name, err)
	}
	switch x := v.(type) {
	case types.String:
		if cosmos {
			if x == "" {
				return common.Address{}, nil // no account (a transfer's missing side): never scores
			}
			a, err := parseAccount(string(x))
			if err != nil {
				return common.Address{}, fmt.Errorf("%s gave %w", name, err)
			}
			return a, nil
		}
		s := string(x)
		b, err := hexutil.Decode(s)
		if err != nil || len(b) != common.AddressLength {
			return common.Address{}, fmt.Errorf("%s gave %q, want a 0x-prefixed 20-byte address", name, s)
		}
		return common.BytesToAddress(b), nil
	case types.Bytes:
		switch {
		case len(x) == common.AddressLength:
			return common.BytesToAddress(x), nil
		case len(x) == 32 && bytes.Equal(x[:12], make([]byte, 12)):
			return common.BytesToAddress(x[12:]), nil
		}
		return common.Address{}, fmt.Errorf("%s gave %d bytes, want 20", name, len(x))
	}
	return common.Address{}, fmt.Errorf("%s gave %s, want an address", name, v.Type().TypeName())
}

// combine applies each rule's min, cap and weight, sums the rules per address, applies
// the score's min and cap and the exclusions, floors, and orders by address.
func combine(p *Policy, values []map[common.Address]*big.Rat) ([]Score, error) {
	totals := map[common.Address]*big.Rat{}
	for i, rule := range p.Rules {
		for u, v := range values[i] {
			v = new(big.Rat).Set(v)
			if rule.Min != nil && v.Cmp(rule.Min) < 0 {
				continue
			}
			if rule.Cap != nil && v.Cmp(rule.Cap) > 0 {
				v.Set(rule.Cap)
			}
			v.Mul(v, rule.Weight)
			if t, ok := totals[u]; ok {
				t.Add(t, v)
			} else {
				totals[u] = v
			}
		}
	}
	maxU64 := new(big.Int).SetUint64(math.MaxUint64)
	out := make([]Score, 0, len(totals))
	for u, t := range totals {
		if p.Exclude[u] || u == (common.Address{}) || t.Sign() <= 0 {
			continue
		}
		if p.ScoreMin != nil && t.Cmp(p.ScoreMin) < 0 {
			continue
		}
		if p.ScoreCap != nil && t.Cmp(p.ScoreCap) > 0 {
			t.Set(p.ScoreCap)
		}
		fl := new(big.Int).Quo(t.Num(), t.Denom()) // both positive: the floor
		if fl.Cmp(maxU64) > 0 {
			return nil, fmt.Errorf("%s: %s: %w", lowerHex(u), fl, ErrScoreOverflow)
		}
		if fl.Sign() == 0 {
			continue
		}
		out = append(out, Score{Addr: u, Score: fl.Uint64()})
	}
	slices.SortFunc(out, func(a, b Score) int { return bytes.Compare(a.Addr[:], b.Addr[:]) })
	return out, nil
}
