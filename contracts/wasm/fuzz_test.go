package wasm_test

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// seedMessages are valid execute messages of every kind for stage 2 of a
// chain made by robustChain.
func seedMessages() [][]byte {
	u1, u2 := testAddr(30), testAddr(31)
	return [][]byte{
		[]byte(`{"update_scores":{"stage":2,"scores":[["` + u1 + `",5],["` + u2 + `",6]]}}`),
		[]byte(`{"update_score":{"addr":"` + u1 + `","stage":2,"amount":9}}`),
		[]byte(`{"increase_score":{"addr":"` + u1 + `","stage":2,"amount":1}}`),
		[]byte(`{"decrease_score":{"addr":"` + u1 + `","stage":2,"amount":1}}`),
		[]byte(`{"finalize_stage":{"stage":2}}`),
		[]byte(`{"add_allow_list":{"addr":"` + u2 + `"}}`),
		[]byte(`{"remove_allow_list":{"addr":"` + u2 + `"}}`),
		[]byte(`{"get_scores":{"stage":2,"limit":3,"start_after":"` + u1 + `"}}`),
		[]byte(`{"get_score":{"addr":"` + u1 + `","stage":2}}`),
		[]byte(`{"get_stage_info":{"stage":2}}`),
		[]byte(`{"a":"\ud83d\ude00\u0000","b":[1e5,-0.5,true,null,{}]}`),
	}
}

func robustChain(t testing.TB) *chain {
	c := newChain(t)
	admin := testAddr(1)
	if r := c.instantiate(admin, obj{"allow_list": []string{admin}, "init_stage": 2}); r.err != "" {
		t.Fatalf("instantiate: %s", r.err)
	}
	return c
}

const jsonBytes = "{}[]\",:0123456789.-e\\u \x00\xff"

// mutate damages msg the way broken clients do: flipped, dropped, inserted
// and duplicated bytes, and truncation.
func mutate(r *rand.Rand, msg []byte) []byte {
	out := bytes.Clone(msg)
	for range 1 + r.IntN(3) {
		if len(out) == 0 {
			return append(out, byte(r.IntN(256)))
		}
		i := r.IntN(len(out))
		switch r.IntN(5) {
		case 0:
			out[i] ^= byte(1 << r.IntN(8))
		case 1:
			out = append(out[:i], out[i+1:]...)
		case 2:
			out = append(out[:i], append([]byte{jsonBytes[r.IntN(len(jsonBytes))]}, out[i:]...)...)
		case 3:
			out = out[:i]
		case 4:
			j := i + r.IntN(len(out)-i)
			out = append(out[:j], append(bytes.Clone(out[i:j]), out[j:]...)...)
		}
	}
	return out
}

// Every input, however broken, must come back as the contract's own result:
// the harness fails the test on any VM error (trap, abort, out of gas).
func TestMutatedMessagesNeverTrap(t *testing.T) {
	c := robustChain(t)
	admin := testAddr(1)
	r := rand.New(rand.NewPCG(1, 2))
	seeds := seedMessages()
	var accepted, rejected int
	for range 600 {
		msg := mutate(r, seeds[r.IntN(len(seeds))])
		if res := c.execute(admin, msg); res.err == "" {
			accepted++
		} else {
			rejected++
		}
		c.query(msg)
	}
	if rejected == 0 {
		t.Fatal("no mutated message was rejected; the mutator is broken")
	}
	t.Logf("600 mutated messages: %d accepted, %d rejected with an error, none trapped", accepted, rejected)
}

func FuzzExecute(f *testing.F) {
	for _, s := range seedMessages() {
		f.Add(s)
	}
	c := robustChain(f)
	admin := testAddr(1)
	f.Fuzz(func(t *testing.T, msg []byte) {
		c.t = t
		c.execute(admin, msg)
		c.query(msg)
	})
}
