package wasm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"testing"

	wasmvm "github.com/CosmWasm/wasmvm/v3"
	wasmvmtypes "github.com/CosmWasm/wasmvm/v3/types"

	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
)

// wasmd's figures, so the gas seen here is the gas a wasmd chain would see.
const (
	gasMultiplier      = 140_000_000 // CosmWasm gas per SDK gas (wasmd DefaultGasMultiplier)
	costValidateSDKGas = 9           // wasmd DefaultGasCostValidateAddress
	callGasLimit       = 1 << 62     // CosmWasm gas (~33G SDK gas): far above any block limit
	addressPrefix      = "init"
	// wasmd stores a contract's keys under 0x03 || 32-byte contract address.
	storePrefixLen = 33
)

// Cosmos SDK KVGasConfig defaults, charged by the store like the SDK's gaskv.
const (
	readCostFlat     = 1000
	readCostPerByte  = 3
	writeCostFlat    = 2000
	writeCostPerByte = 30
	deleteCost       = 1000
	iterNextCostFlat = 30
)

// memStore is an in-memory KVStore that charges SDK storage gas to sdkGas.
type memStore struct {
	data   map[string][]byte
	sdkGas uint64
}

func newMemStore() *memStore { return &memStore{data: map[string][]byte{}} }

func (s *memStore) Get(key []byte) []byte {
	s.sdkGas += readCostFlat + readCostPerByte*uint64(storePrefixLen+len(key))
	v, ok := s.data[string(key)]
	if !ok {
		return nil
	}
	s.sdkGas += readCostPerByte * uint64(len(v))
	return bytes.Clone(v)
}

func (s *memStore) Set(key, value []byte) {
	s.sdkGas += writeCostFlat + writeCostPerByte*uint64(storePrefixLen+len(key)+len(value))
	s.data[string(key)] = bytes.Clone(value)
}

func (s *memStore) Delete(key []byte) {
	s.sdkGas += deleteCost
	delete(s.data, string(key))
}

func (s *memStore) Iterator(start, end []byte) wasmvmtypes.Iterator {
	return s.iterator(start, end, false)
}

func (s *memStore) ReverseIterator(start, end []byte) wasmvmtypes.Iterator {
	return s.iterator(start, end, true)
}

// iterator snapshots the keys in [start, end); nil bounds are open.
func (s *memStore) iterator(start, end []byte, reverse bool) *memIter {
	var keys []string
	for k := range s.data {
		if (start == nil || k >= string(start)) && (end == nil || k < string(end)) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if reverse {
		for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
			keys[i], keys[j] = keys[j], keys[i]
		}
	}
	it := &memIter{store: s, keys: keys, start: start, end: end}
	it.charge()
	return it
}

type memIter struct {
	store      *memStore
	keys       []string
	pos        int
	start, end []byte
}

func (it *memIter) charge() {
	if it.Valid() {
		k := it.keys[it.pos]
		it.store.sdkGas += iterNextCostFlat + readCostPerByte*uint64(storePrefixLen+len(k)+len(it.store.data[k]))
	}
}

func (it *memIter) Domain() ([]byte, []byte) { return it.start, it.end }
func (it *memIter) Valid() bool              { return it.pos < len(it.keys) }
func (it *memIter) Error() error             { return nil }
func (it *memIter) Close() error             { return nil }
func (it *memIter) Key() []byte              { it.mustBeValid(); return []byte(it.keys[it.pos]) }
func (it *memIter) Value() []byte {
	it.mustBeValid()
	return bytes.Clone(it.store.data[it.keys[it.pos]])
}

func (it *memIter) Next() {
	it.mustBeValid()
	it.pos++
	it.charge()
}

func (it *memIter) mustBeValid() {
	if !it.Valid() {
		panic("memIter: use of an exhausted iterator") // the Iterator contract says so
	}
}

// sdkGasMeter reports the store's SDK gas in CosmWasm units, as wasmd's
// multiplied gas meter does.
type sdkGasMeter struct{ store *memStore }

func (m sdkGasMeter) GasConsumed() wasmvmtypes.Gas { return m.store.sdkGas * gasMultiplier }

// noQuerier answers every chain query with an error: the contract makes none.
type noQuerier struct{}

func (noQuerier) Query(wasmvmtypes.QueryRequest, uint64) ([]byte, error) {
	return nil, errors.New("this test chain answers no queries")
}
func (noQuerier) GasConsumed() uint64 { return 0 }

// chainAPI validates addresses like wasmd with bech32 prefix "init": the
// input must decode, carry the prefix, hold 20 or 32 bytes, and be normalized.
func chainAPI() wasmvm.GoAPI {
	canonicalize := func(human string) ([]byte, uint64, error) {
		cost := uint64(4 * gasMultiplier)
		hrp, payload, err := bech32Decode(human)
		if err != nil {
			return nil, cost, fmt.Errorf("decoding bech32 failed: %w", err)
		}
		if hrp != addressPrefix {
			return nil, cost, fmt.Errorf("invalid Bech32 prefix; expected %s, got %s", addressPrefix, hrp)
		}
		if len(payload) != 20 && len(payload) != 32 {
			return nil, cost, fmt.Errorf("address length must be 20 or 32 bytes, got %d", len(payload))
		}
		return payload, cost, nil
	}
	humanize := func(canon []byte) (string, uint64, error) {
		if len(canon) != 20 && len(canon) != 32 {
			return "", 5 * gasMultiplier, fmt.Errorf("address length must be 20 or 32 bytes, got %d", len(canon))
		}
		return bech32Encode(addressPrefix, canon), 5 * gasMultiplier, nil
	}
	validate := func(human string) (uint64, error) {
		cost := uint64(costValidateSDKGas * gasMultiplier)
		canon, _, err := canonicalize(human)
		if err != nil {
			return cost, err
		}
		if norm, _, _ := humanize(canon); norm != human {
			return cost, fmt.Errorf("address not normalized: %s", human)
		}
		return cost, nil
	}
	return wasmvm.GoAPI{HumanizeAddress: humanize, CanonicalizeAddress: canonicalize, ValidateAddress: validate}
}

// testAddr is a deterministic 20-byte account address.
func testAddr(i int) string {
	payload := make([]byte, 20)
	for j := range payload {
		payload[j] = byte(i*7 + j*13 + 1)
	}
	payload[0], payload[1] = byte(i>>8), byte(i)
	return bech32Encode(addressPrefix, payload)
}

// chain runs one contract instance on wasmvm with an in-memory store.
type chain struct {
	t        testing.TB
	vm       *wasmvm.VM
	checksum wasmvm.Checksum
	store    *memStore
	height   uint64
	contract string
}

func newVM(t testing.TB) *wasmvm.VM {
	t.Helper()
	// The capabilities of a current wasmd chain.
	caps := []string{"iterator", "staking", "stargate", "cosmwasm_1_1", "cosmwasm_1_2", "cosmwasm_1_3", "cosmwasm_1_4", "cosmwasm_2_0", "cosmwasm_2_1", "cosmwasm_2_2", "cosmwasm_3_0"}
	vm, err := wasmvm.NewVM(t.TempDir(), caps, 32, false, 16)
	if err != nil {
		t.Fatalf("create wasmvm: %v", err)
	}
	t.Cleanup(vm.Cleanup)
	return vm
}

func newChain(t testing.TB) *chain {
	t.Helper()
	vm := newVM(t)
	checksum, _, err := vm.StoreCode(wasmcontract.Code(), callGasLimit)
	if err != nil {
		t.Fatalf("store contract code: %v", err)
	}
	return &chain{t: t, vm: vm, checksum: checksum, store: newMemStore(), height: 1, contract: bech32Encode(addressPrefix, bytes.Repeat([]byte{0xc0}, 32))}
}

func (c *chain) env() wasmvmtypes.Env {
	c.height++
	return wasmvmtypes.Env{
		Block:    wasmvmtypes.BlockInfo{Height: c.height, Time: wasmvmtypes.Uint64(1_700_000_000_000_000_000 + c.height*1_000_000_000), ChainID: "vip-wasm-test-1"},
		Contract: wasmvmtypes.ContractInfo{Address: c.contract},
	}
}

func info(sender string) wasmvmtypes.MessageInfo {
	return wasmvmtypes.MessageInfo{Sender: sender, Funds: []wasmvmtypes.Coin{}}
}

// callResult is one instantiate/execute outcome.
type callResult struct {
	res    *wasmvmtypes.Response
	err    string // the contract's error, if it returned one
	gas    uint64 // CosmWasm gas wasmvm reports (used internally)
	sdkGas uint64 // SDK storage gas the store charged
}

func (c *chain) instantiate(sender string, msg any) callResult {
	c.t.Helper()
	before := c.store.sdkGas
	saved := maps.Clone(c.store.data)
	r, gas, err := c.vm.Instantiate(c.checksum, c.env(), info(sender), mustJSON(c.t, msg), c.store, chainAPI(), noQuerier{}, sdkGasMeter{c.store}, callGasLimit, deserCost)
	if err != nil {
		c.t.Fatalf("instantiate: vm error: %v", err)
	}
	if r.Err != "" {
		c.store.data = saved
	}
	return callResult{res: r.Ok, err: r.Err, gas: gas, sdkGas: c.store.sdkGas - before}
}

// execute runs msg; like a chain, it drops the call's writes if the contract
// returns an error.
func (c *chain) execute(sender string, msg any) callResult {
	c.t.Helper()
	before := c.store.sdkGas
	saved := maps.Clone(c.store.data)
	r, gas, err := c.vm.Execute(c.checksum, c.env(), info(sender), mustJSON(c.t, msg), c.store, chainAPI(), noQuerier{}, sdkGasMeter{c.store}, callGasLimit, deserCost)
	if err != nil {
		c.t.Fatalf("execute %s: vm error: %v", brief(mustJSON(c.t, msg)), err)
	}
	if r.Err != "" {
		c.store.data = saved
	}
	return callResult{res: r.Ok, err: r.Err, gas: gas, sdkGas: c.store.sdkGas - before}
}

// mustExecute fails the test unless the contract accepted msg.
func (c *chain) mustExecute(sender string, msg any) *wasmvmtypes.Response {
	c.t.Helper()
	r := c.execute(sender, msg)
	if r.err != "" {
		c.t.Fatalf("execute %s: contract error: %s", brief(mustJSON(c.t, msg)), r.err)
	}
	return r.res
}

// query returns the raw JSON answer or the contract's error.
func (c *chain) query(msg any) ([]byte, string) {
	c.t.Helper()
	r, _, err := c.vm.Query(c.checksum, c.env(), mustJSON(c.t, msg), c.store, chainAPI(), noQuerier{}, sdkGasMeter{c.store}, callGasLimit, deserCost)
	if err != nil {
		c.t.Fatalf("query %s: vm error: %v", brief(mustJSON(c.t, msg)), err)
	}
	return r.Ok, r.Err
}

// mustQuery decodes a successful query answer into out and returns its JSON.
func (c *chain) mustQuery(msg, out any) []byte {
	c.t.Helper()
	data, cerr := c.query(msg)
	if cerr != "" {
		c.t.Fatalf("query %s: contract error: %s", brief(mustJSON(c.t, msg)), cerr)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		c.t.Fatalf("query %s: decode %s: %v", brief(mustJSON(c.t, msg)), brief(data), err)
	}
	return data
}

// brief cuts a message for failure output.
func brief(b []byte) string {
	const max = 300
	if len(b) <= max {
		return string(b)
	}
	return fmt.Sprintf("%s... (%d bytes)", b[:max], len(b))
}

var deserCost = wasmvmtypes.UFraction{Numerator: 1, Denominator: 1}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if b, ok := v.([]byte); ok {
		return b
	}
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode message: %v", err)
	}
	return b
}

// Response shapes of the official contract's queries.
type userScore struct {
	Stage uint64 `json:"stage"`
	Addr  string `json:"addr"`
	Score uint64 `json:"score"`
}

type userScores struct {
	Scores []userScore `json:"scores"`
}

type stageInfo struct {
	Stage       uint64 `json:"stage"`
	TotalScore  uint64 `json:"total_score"`
	IsFinalized bool   `json:"is_finalized"`
}

// obj builds a message like {"name": body}.
type obj = map[string]any

func scoresMsg(stage uint64, pairs ...any) obj {
	list := make([][2]any, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		list = append(list, [2]any{pairs[i], pairs[i+1]})
	}
	return obj{"update_scores": obj{"stage": stage, "scores": list}}
}

// events flattens a response's events to "type{k=v,...}" strings.
func events(res *wasmvmtypes.Response) []string {
	var out []string
	if res == nil {
		return out
	}
	for _, e := range res.Events {
		s := e.Type + "{"
		for i, a := range e.Attributes {
			if i > 0 {
				s += ","
			}
			s += a.Key + "=" + a.Value
		}
		out = append(out, s+"}")
	}
	return out
}
