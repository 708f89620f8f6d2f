package policy

import (
	"fmt"
	"math"
	"math/big"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// dyadic is an exact number m / 2^k. Every CEL number is one (an int, a uint, or a double,
// which is a 53-bit mantissa times a power of two), and so are their sums, differences and
// products: the per-record arithmetic stays exact without big.Rat's GCD on every addition.
type dyadic struct {
	m big.Int
	k uint
}

// number is a CEL number as a dyadic.
func number(v ref.Val) (*dyadic, error) {
	d := new(dyadic)
	switch x := v.(type) {
	case types.Int:
		d.m.SetInt64(int64(x))
	case types.Uint:
		d.m.SetUint64(uint64(x))
	case types.Double:
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%v is not a finite number", f)
		}
		frac, exp := math.Frexp(f) // f = frac × 2^exp, |frac| in [0.5, 1)
		d.m.SetInt64(int64(frac * (1 << 53)))
		if e := exp - 53; e >= 0 {
			d.m.Lsh(&d.m, uint(e))
		} else {
			d.k = uint(-e)
		}
		d.trim()
	default:
		return nil, fmt.Errorf("got %s (%v), want a number", v.Type().TypeName(), v.Value())
	}
	return d, nil
}

// trim drops trailing zero bits of m against k.
func (d *dyadic) trim() {
	if d.k == 0 || d.m.Sign() == 0 {
		if d.m.Sign() == 0 {
			d.k = 0
		}
		return
	}
	z := min(d.m.TrailingZeroBits(), d.k)
	if z > 0 {
		d.m.Rsh(&d.m, z)
		d.k -= z
	}
}

// add sets d to d + o.
func (d *dyadic) add(o *dyadic) {
	switch {
	case d.k == o.k:
		d.m.Add(&d.m, &o.m)
	case d.k > o.k:
		var t big.Int
		d.m.Add(&d.m, t.Lsh(&o.m, d.k-o.k))
	default:
		d.m.Lsh(&d.m, o.k-d.k)
		d.k = o.k
		d.m.Add(&d.m, &o.m)
	}
}

// neg sets d to -d.
func (d *dyadic) neg() { d.m.Neg(&d.m) }

// mul sets d to d × o.
func (d *dyadic) mul(o *dyadic) {
	d.m.Mul(&d.m, &o.m)
	d.k += o.k
	d.trim()
}

// mulUint sets d to d × u.
func (d *dyadic) mulUint(u uint64) {
	var t big.Int
	d.m.Mul(&d.m, t.SetUint64(u))
}

func (d *dyadic) sign() int { return d.m.Sign() }

func (d *dyadic) clone() *dyadic {
	c := &dyadic{k: d.k}
	c.m.Set(&d.m)
	return c
}

// rat is d as a big.Rat.
func (d *dyadic) rat() *big.Rat {
	den := new(big.Int).Lsh(big.NewInt(1), d.k)
	return new(big.Rat).SetFrac(new(big.Int).Set(&d.m), den)
}
