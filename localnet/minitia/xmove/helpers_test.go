package xmove_test

// The x/move routes' own tests (lists_test.go) start a Move node here; what a Move node does
// alike a Wasm one is the shared node suite, localnet/minitia/nodetest.

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
)

const (
	mnemonicA = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
	mnemonicB = "legal winner thank year wave sausage worth useful legal winner thank yellow"
)

type testNode struct {
	node *minitia.Node
	c    *cosmostx.Client
	keys []*cosmostx.Signer
}

func requireLibs(t testing.TB) {
	t.Helper()
	if _, err := movevm.OpenVM(movevm.Dir()); err != nil {
		if strings.Contains(err.Error(), "make setup") && !requireNodes() {
			t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
		}
		t.Fatal(err)
	}
}

func start(t testing.TB) *testNode {
	t.Helper()
	requireLibs(t)
	n, err := minitia.Start(context.Background(), minitia.Config{VM: vip.Move, KeyType: vip.Secp256k1,
		Mnemonics: []string{mnemonicA, mnemonicB}, GeneratedAccounts: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	enc, err := cosmostx.NewEncoding(n.Config().Bech32Prefix, initiamove.RegisterInterfaces)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cosmostx.New(n.RPCURL(), n.RESTURL(), n.ChainID(), enc, n.Config().MinGasPrices()[0])
	if err != nil {
		t.Fatal(err)
	}
	tn := &testNode{node: n, c: c}
	for _, a := range n.Funded() {
		s, err := c.Signer(context.Background(), a.Key)
		if err != nil {
			t.Fatal(err)
		}
		tn.keys = append(tn.keys, s)
	}
	return tn
}

func vmAddr(s *cosmostx.Signer) movebcs.Address {
	return movebcs.AccountAddress(s.Key.PubKey().Address())
}

// publish compiles vip_score for the signer's address and publishes it.
func (tn *testNode) publish(t *testing.T, s *cosmostx.Signer) {
	t.Helper()
	comp, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := movecontract.Compile(context.Background(), comp, vmAddr(s))
	if err != nil {
		t.Fatal(err)
	}
	res, err := tn.c.Exec(context.Background(), s, &initiamove.MsgPublish{Sender: s.Address, CodeBytes: [][]byte{b.VipScore}, UpgradePolicy: initiamove.COMPATIBLE})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	// The fee's payment moves Move coins too (its fungible asset events come first).
	if got := cosmostx.Attr(res, "move", "type_tag"); len(got) == 0 || got[len(got)-1] != "0x1::code::ModulePublishedEvent" ||
		slices.Index(got, "0x1::code::ModulePublishedEvent") != len(got)-1 {
		t.Fatalf("publish events: %v", got)
	}
}

func (tn *testNode) exec(s *cosmostx.Signer, owner movebcs.Address, fn string, args ...[]byte) (*sdk.TxResponse, error) {
	return tn.c.Exec(context.Background(), s, &initiamove.MsgExecute{Sender: s.Address, ModuleAddress: owner.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args})
}

func requireNodes() bool { return os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true" }
