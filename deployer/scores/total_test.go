package scores

import (
	"encoding/json"
	"math"
	"testing"
)

func TestTotal(t *testing.T) {
	for _, tc := range []struct {
		name string
		add  []uint64
		sub  []uint64
		want string
		fits bool
	}{
		{"empty", nil, nil, "0", true},
		{"limit", []uint64{math.MaxUint64}, nil, "18446744073709551615", true},
		{"one past the limit", []uint64{math.MaxUint64, 1}, nil, "18446744073709551616", false},
		{"two halves of 2^64", []uint64{1 << 63, 1 << 63}, nil, "18446744073709551616", false},
		{"back under the limit", []uint64{math.MaxUint64, 5}, []uint64{5}, "18446744073709551615", true},
		{"borrow across the word", []uint64{math.MaxUint64, 2}, []uint64{3}, "18446744073709551614", true},
		{"below zero stops at zero", []uint64{3}, []uint64{5}, "0", true},
		{"1200 at 2^54 plus", func() []uint64 {
			v := make([]uint64, 1200)
			for i := range v {
				v[i] = 1<<54 + 1
			}
			return v
		}(), nil, "21617278211378382000", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var total Total
			for _, v := range tc.add {
				total.Add(v)
			}
			for _, v := range tc.sub {
				total.Sub(v)
			}
			if got := total.String(); got != tc.want {
				t.Errorf("total %s, want %s", got, tc.want)
			}
			if total.Fits() != tc.fits {
				t.Errorf("fits %v, want %v", total.Fits(), tc.fits)
			}
			b, err := json.Marshal(total)
			if err != nil || string(b) != tc.want {
				t.Errorf("JSON %s (%v), want %s", b, err, tc.want)
			}
		})
	}
}
