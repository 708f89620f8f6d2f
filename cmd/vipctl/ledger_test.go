package main

import "testing"

func TestParseRefuse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		n      int
		onward bool
		bad    bool
	}{
		{in: ""},
		{in: "3", n: 3},
		{in: "1+", n: 1, onward: true},
		{in: "0", bad: true},
		{in: "-2", bad: true},
		{in: "+", bad: true},
		{in: "two", bad: true},
	} {
		n, onward, err := parseRefuse(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("--refuse %q accepted", tc.in)
			}
			continue
		}
		if err != nil || n != tc.n || onward != tc.onward {
			t.Errorf("--refuse %q: %d %v %v, want %d %v", tc.in, n, onward, err, tc.n, tc.onward)
		}
	}
}
