package movevm

import (
	"encoding/json"
	"fmt"
)

// VM is libmovevm. Only its stateless helpers are bound so far.
type VM struct{ lib *library }

// OpenVM loads libmovevm from dir (see Dir), checking its pinned sha256.
func OpenVM(dir string) (*VM, error) {
	l, err := open(dir, VMLib)
	if err != nil {
		return nil, fmt.Errorf("open MoveVM: %w", err)
	}
	return &VM{lib: l}, nil
}

// DecodeModule describes compiled module bytes as the VM reads them (address, name,
// functions with visibility, entry and view flags, parameters and returns, structs with
// abilities), as JSON.
func (v *VM) DecodeModule(code []byte) (json.RawMessage, error) {
	out, err := v.lib.callSlice("decode_module_bytes", code)
	if err != nil {
		return nil, fmt.Errorf("decode module: %w", err)
	}
	if !json.Valid(out) {
		return nil, fmt.Errorf("decode module: the VM answered %d bytes that are not JSON", len(out))
	}
	return out, nil
}
