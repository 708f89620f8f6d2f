package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// A checkout entry without assetlist.json (the registry holds some, e.g. testnets/embr) is
// read and validated on its chain.json; a missing chain.json is refused.
func TestReadEntryWithoutAssetlist(t *testing.T) {
	root := registryDir(t, sampleFiles(t))
	entry := filepath.Join(root, "mainnets", "example")
	if err := os.Remove(filepath.Join(entry, "assetlist.json")); err != nil {
		t.Fatal(err)
	}
	if ps := validate(t, root); len(ps) != 0 {
		t.Errorf("problems without an assetlist: %v", ps)
	}
	if err := os.Remove(filepath.Join(entry, "chain.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEntry(entry); err == nil {
		t.Error("an entry without chain.json was read")
	}
}
