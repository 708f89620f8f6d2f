package scores

import (
	"bytes"
	"testing"
)

// FuzzParseCSV: the parser never panics, and whatever it accepts survives a Write/Parse
// round trip unchanged.
func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("address,score\n" + addrA + ",1\n"))
	f.Add([]byte(addrA + ",18446744073709551616\n"))
	f.Add([]byte("\"a,b\",1\n#c\n\n x , 2"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, CSV)
	})
}

// FuzzParseJSON is FuzzParseCSV for the JSON format.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`[{"address":"` + addrA + `","score":1}]`))
	f.Add([]byte(`[["` + addrA + `","2"]]`))
	f.Add([]byte(`[[1,2]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		roundTrip(t, data, JSON)
	})
}

func roundTrip(t *testing.T, data []byte, f Format) {
	entries, err := Parse(bytes.NewReader(data), f)
	if err != nil {
		return
	}
	var buf bytes.Buffer
	if err := Write(&buf, entries, f); err != nil {
		t.Fatalf("write accepted entries: %v", err)
	}
	again, err := Parse(&buf, f)
	if err != nil {
		t.Fatalf("re-parse written entries: %v\n%s", err, buf.Bytes())
	}
	if len(again) != len(entries) {
		t.Fatalf("round trip: %d entries became %d", len(entries), len(again))
	}
	for i := range again {
		if again[i] != entries[i] {
			t.Fatalf("round trip: entry %d %v became %v", i, entries[i], again[i])
		}
	}
}
