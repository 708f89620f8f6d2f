package movevm

import (
	"fmt"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// readEvents reads the library's events: each a type tag and its JSON.
func readEvents(r *movebcs.Reader) []Event {
	n := r.ULEB128()
	var out []Event
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		out = append(out, Event{TypeTag: r.Str(), Data: r.Str()})
	}
	return out
}

// decodeResult reads the library's ExecutionResult: events, staking deltas, Cosmos
// messages, new accounts, gas usages (per module; the total comes from the gas balance).
func decodeResult(b []byte) (Result, error) {
	r := movebcs.NewReader(b)
	res := Result{Events: readEvents(r)}
	n := r.ULEB128()
	for i := uint64(0); i < n && r.Err() == nil; i++ { // validator, metadata, delegation, undelegation
		r.Bytes()
		r.Address()
		r.U64()
		r.Str()
	}
	res.StakingDeltas = int(n)
	n = r.ULEB128()
	for i := uint64(0); i < n && r.Err() == nil; i++ { // sender, data, allow_failure, callback
		r.Address()
		r.Bytes()
		r.Bool()
		if r.Bool() {
			r.U64()
			r.Address()
			r.Str()
			r.Str()
		}
	}
	res.CosmosMessages = int(n)
	n = r.ULEB128()
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		res.NewAccounts = append(res.NewAccounts, NewAccount{Address: r.Address(), AccountNumber: r.U64(), AccountType: r.U8()})
	}
	n = r.ULEB128()
	for i := uint64(0); i < n && r.Err() == nil; i++ { // module id, gas
		r.Address()
		r.Str()
		r.U64()
	}
	if err := r.Done(); err != nil {
		return Result{}, fmt.Errorf("decode execution result: %w", err)
	}
	return res, nil
}
