package policy

import (
	"math"
	"math/big"
	"testing"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// dyadic arithmetic agrees with big.Rat on every kind of CEL number.
func TestDyadicIsExact(t *testing.T) {
	vals := []ref.Val{types.Int(-7), types.Uint(math.MaxUint64), types.Double(0.1), types.Double(-1.5e18),
		types.Double(123456789012345678901.0 / 1e18), types.Double(math.SmallestNonzeroFloat64), types.Double(math.MaxFloat64), types.Double(0), types.Int(0)}
	sum, prod := &dyadic{}, &dyadic{}
	prod.m.SetInt64(1)
	rsum, rprod := new(big.Rat), big.NewRat(1, 1)
	for _, v := range vals {
		d, err := number(v)
		if err != nil {
			t.Fatal(err)
		}
		var r *big.Rat
		switch x := v.(type) {
		case types.Int:
			r = new(big.Rat).SetInt64(int64(x))
		case types.Uint:
			r = new(big.Rat).SetUint64(uint64(x))
		case types.Double:
			r = new(big.Rat).SetFloat64(float64(x))
		}
		if d.rat().Cmp(r) != 0 {
			t.Fatalf("%v: dyadic %s, want %s", v, d.rat().FloatString(30), r.FloatString(30))
		}
		sum.add(d)
		rsum.Add(rsum, r)
		if d.sign() != 0 {
			prod.mul(d)
			rprod.Mul(rprod, r)
		}
		n := d.clone()
		n.neg()
		n.mulUint(3)
		if n.rat().Cmp(new(big.Rat).Mul(r, big.NewRat(-3, 1))) != 0 {
			t.Fatalf("%v × -3 differs", v)
		}
	}
	if sum.rat().Cmp(rsum) != 0 || prod.rat().Cmp(rprod) != 0 {
		t.Fatal("sum or product differs from big.Rat's")
	}
	for _, bad := range []ref.Val{types.Double(math.NaN()), types.Double(math.Inf(1)), types.String("1")} {
		if _, err := number(bad); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}
