package whitelist

import (
	"math/big"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// bcsBigDecimal is 0x1::bigdecimal::BigDecimal { scaled: BigUint { bytes: vector<u8> } }: the
// value times 10^18 as little-endian bytes, shortest form (zero is one 0 byte, as the VM's
// biguint natives write it, so equality by bytes holds), in a vector<u8>.
func bcsBigDecimal(scaled *big.Int) []byte {
	be := scaled.Bytes()
	if len(be) == 0 {
		be = []byte{0}
	}
	le := make([]byte, len(be))
	for i, b := range be {
		le[len(be)-1-i] = b
	}
	w := movebcs.NewWriter(len(le) + 1)
	w.Bytes(le)
	return w.Out()
}
