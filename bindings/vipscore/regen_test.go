package vipscore

import (
	"os"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/abigen"
)

// TestBindingIsCurrent regenerates the binding from the committed contract artifacts with
// go-ethereum's abigen library, as `go generate` does with `go tool abigen --v2`, and fails
// when vipscore.go differs: a contract rebuild without a binding regeneration is caught.
func TestBindingIsCurrent(t *testing.T) {
	abiJSON, err := os.ReadFile("../../contracts/evm/artifacts/VipScore.abi.json")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile("../../contracts/evm/artifacts/VipScore.bin")
	if err != nil {
		t.Fatal(err)
	}
	want, err := abigen.BindV2([]string{"VipScore"}, []string{string(abiJSON)}, []string{string(bin)},
		"vipscore", map[string]string{}, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("vipscore.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != want {
		t.Fatal("vipscore.go is stale: run `go generate ./bindings/vipscore` (make bindings) and commit it")
	}
}
