package jsonfmt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The golden outputs were checked with prettier 3.6 (--parser json); the cases sit on its
// rules' edges: 80 columns with the comma counted, arrays of several objects, number fill,
// collapsed and expanded objects, source text of strings and numbers.
func TestFormatMatchesGoldenFiles(t *testing.T) {
	ins, err := filepath.Glob("../../../../fixtures/jsonfmt/*.in.json")
	if err != nil || len(ins) == 0 {
		t.Fatalf("no golden inputs (%v)", err)
	}
	for _, in := range ins {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(in, ".in.json") + ".golden.json")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Format(src)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n%s\nwant\n%s", in, got, want)
		}
		// Formatting is a fixed point.
		again, err := Format(got)
		if err != nil || string(again) != string(got) {
			t.Errorf("%s: a second pass changed the output (%v)", in, err)
		}
	}
}

func TestMarshalExpandsObjects(t *testing.T) {
	type entry struct {
		Name  string            `json:"name"`
		Algos []string          `json:"key_algos"`
		Logo  map[string]string `json:"logo_URIs"`
		Empty []int             `json:"empty"`
	}
	got, err := Marshal(entry{"x<y>", []string{"secp256k1"}, map[string]string{"png": "https://e.org/a.png"}, []int{}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "x<y>",
  "key_algos": ["secp256k1"],
  "logo_URIs": {
    "png": "https://e.org/a.png"
  },
  "empty": []
}
`
	if string(got) != want {
		t.Fatalf("got\n%s", got)
	}
}

func TestFormatRefusesBrokenJSON(t *testing.T) {
	for _, in := range []string{"", "{", `{"a": 1,}`, `{"a" 1}`, `[1] 2`} {
		if _, err := Format([]byte(in)); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
