package scores

import (
	"math"
	"math/big"
	"math/bits"
)

// Total is an exact sum of u64 scores. Every VM's contract holds a stage's total in a u64,
// so a sum that a u64 cannot hold must be seen, not wrapped: 128 bits hold the sum of up to
// 2^64 scores of any size.
type Total struct{ hi, lo uint64 }

// TotalOf is a Total holding v.
func TotalOf(v uint64) Total { return Total{lo: v} }

// Add adds v.
func (t *Total) Add(v uint64) {
	var carry uint64
	t.lo, carry = bits.Add64(t.lo, v, 0)
	t.hi += carry
}

// Sub subtracts v, stopping at zero (a contract's total never holds less than one of its
// rows, so a result below zero is a chain that broke that rule, not a number to carry on).
func (t *Total) Sub(v uint64) {
	var borrow uint64
	lo, borrow := bits.Sub64(t.lo, v, 0)
	if t.hi < borrow {
		*t = Total{}
		return
	}
	t.lo, t.hi = lo, t.hi-borrow
}

// Uint64 is the total and whether a u64 holds it.
func (t Total) Uint64() (uint64, bool) { return t.lo, t.hi == 0 }

// Fits reports whether a u64 holds the total.
func (t Total) Fits() bool { return t.hi == 0 }

// Equal reports whether the total is exactly v.
func (t Total) Equal(v uint64) bool { return t.hi == 0 && t.lo == v }

// Big is the total as a big.Int.
func (t Total) Big() *big.Int {
	b := new(big.Int).SetUint64(t.hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(t.lo))
}

// String is the total in decimal.
func (t Total) String() string { return t.Big().String() }

// MarshalJSON writes the total as a JSON number, exact at any size.
func (t Total) MarshalJSON() ([]byte, error) { return []byte(t.String()), nil }

// MaxTotal is the largest total a contract holds: the u64 limit.
const MaxTotal uint64 = math.MaxUint64
