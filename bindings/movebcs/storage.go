package movebcs

import "fmt"

// Store keys, as the MoveVM's access paths encode them: address, data kind, then the kind's key.
const (
	kindCode      = 0
	kindResource  = 2
	kindTableItem = 3
	kindTableInfo = 4
)

// TableInfoKey is the store key of a table's key and value types.
func TableInfoKey(handle Address) []byte {
	return append(append([]byte{}, handle[:]...), kindTableInfo)
}

// TableItemKey is the store key of a table entry whose key's BCS is key.
func TableItemKey(handle Address, key []byte) []byte {
	return append(append(append([]byte{}, handle[:]...), kindTableItem), key...)
}

// ResourceKey is the store key of the resource whose BCS struct tag is tag under addr.
func ResourceKey(addr Address, tag []byte) []byte {
	return append(append(append([]byte{}, addr[:]...), kindResource), tag...)
}

// ModuleKey is the store key of a module's code.
func ModuleKey(addr Address, name string) []byte {
	w := NewWriter(34 + len(name))
	w.Address(addr)
	w.U8(kindCode)
	w.Str(name)
	return w.Out()
}

// TableInfo is a table's key and value types, as the BCS of two type tags.
type TableInfo struct{ KeyType, ValueType []byte }

// ParseTableInfo splits the stored TableInfo of a table.
func ParseTableInfo(b []byte) (TableInfo, error) {
	r := NewReader(b)
	k := r.TypeTag()
	v := r.TypeTag()
	if err := r.Done(); err != nil {
		return TableInfo{}, fmt.Errorf("table info: %w", err)
	}
	return TableInfo{KeyType: k, ValueType: v}, nil
}
