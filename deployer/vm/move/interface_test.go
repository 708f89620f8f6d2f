package move

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The table of official functions equals the official module's decoded ABI (fixture).
func TestOfficialFunctionsMatchTheOfficialModule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "fixtures", "move", "official_interface.json"))
	if err != nil {
		t.Fatal(err)
	}
	var official struct {
		Functions map[string]struct {
			IsEntry bool     `json:"is_entry"`
			IsView  bool     `json:"is_view"`
			Params  []string `json:"params"`
			Return  []string `json:"return"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(b, &official); err != nil {
		t.Fatal(err)
	}
	for _, f := range OfficialFunctions {
		o, ok := official.Functions[f.Name]
		if !ok {
			t.Errorf("%s is not in the official module", f.Name)
			continue
		}
		if o.IsEntry != f.IsEntry || o.IsView != f.IsView || !slices.Equal(o.Params, f.Params) || !slices.Equal(o.Return, f.Return) {
			t.Errorf("%s: table %+v, official %+v", f.Name, f, o)
		}
	}
	n := 0
	for _, o := range official.Functions {
		if o.IsEntry || o.IsView {
			n++
		}
	}
	if n != len(OfficialFunctions) {
		t.Errorf("the official module has %d entry and view functions, the table %d", n, len(OfficialFunctions))
	}
}
