package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/snapshot"
)

func TestOutputs(t *testing.T) {
	src := header + okSources + "rules:\n  - {name: vol, source: transfers, aggregate: sum, user: args.to, amount: args.value / 1e18}\n"
	p, err := Parse([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	chain := memChain{
		transfer(10, 1000, 0, alice, bob, tokens(3)),
		transfer(11, 1100, 1, bob, carol, tokens(2)),
		transfer(12, 1200, 0, carol, alice, tokens(7.9)),
	}
	res, err := Compute(context.Background(), p, win, chain)
	if err != nil {
		t.Fatal(err)
	}
	run := Run{Stage: 4, BridgeID: 9, Span: Span{Window: win}, SourceKind: "node", SourceHeight: 30}
	sf, man, err := Outputs(p, run, res)
	if err != nil {
		t.Fatal(err)
	}
	sf2, man2, _ := Outputs(p, run, res)
	if !bytes.Equal(sf, sf2) || !bytes.Equal(man, man2) {
		t.Fatal("two runs, two outputs")
	}
	want := "address,score\n" // bob 0x…0b0b, alice 0x…0a11ce, carol 0x…0ca401
	for _, l := range []string{"0x0000000000000000000000000000000000000B0b,3", "0x00000000000000000000000000000000000A11cE,7", "0x00000000000000000000000000000000000ca401,2"} {
		want += l + "\n"
	}
	if string(sf) != want {
		t.Fatalf("score file\n%s\nwant\n%s", sf, want)
	}
	// The root is the one audit builds from the score file as read back.
	entries, err := scores.Parse(bytes.NewReader(sf), scores.CSV)
	if err != nil {
		t.Fatal(err)
	}
	b := snapshot.NewBuilder(9, 4, 0)
	for _, e := range entries {
		a, _ := scores.EVMCodec{}.Decode(e.Addr)
		_ = b.Add(a, e.Amount)
	}
	tree, _ := b.Build()
	var m Manifest
	if err := json.Unmarshal(man, &m); err != nil {
		t.Fatal(err)
	}
	if m.Merkle.Root != "0x"+tree.Root().String() || m.Merkle.Total != "12" || m.Scores.Addresses != 3 || m.Records["transfers"] != 3 {
		t.Fatalf("manifest %s", man)
	}
	if m.Scores.Digest != digest(sf) || !strings.HasPrefix(m.InputDigest, "sha256:") || m.Policy.Params["token"] == "" {
		t.Fatalf("manifest %s", man)
	}
	// Only the source differs between a node run and an indexer run of the same records.
	run.SourceKind, run.SourceHeight = "indexer", 31
	_, man3, _ := Outputs(p, run, res)
	var m3 Manifest
	_ = json.Unmarshal(man3, &m3)
	m3.Source = m.Source
	a, _ := json.Marshal(m)
	c, _ := json.Marshal(m3)
	if !bytes.Equal(a, c) {
		t.Fatalf("manifests differ beyond the source:\n%s\n%s", a, c)
	}
}
