package whitelist

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	govv1 "github.com/cosmos/cosmos-sdk/x/gov/types/v1"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/deployer/vip"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const golden = "../../../fixtures/whitelist"

// sample is a complete mainnet request; tests change one field at a time.
func sample() Request {
	return Request{
		Network:       "mainnet",
		Name:          "Example Rollup",
		ChainID:       "example-1",
		VM:            vip.EVM,
		Operator:      "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7",
		BridgeID:      29,
		BridgeAddress: "0x6a0d84bd2d2f8b2e6ffef1f2b6c1f1c4c3b8d1a0e3b4b7c9d2f3e4a5b6c7d8e9",
		ScoreContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
		MaxRate:       "0.2",
		MaxChangeRate: "0.01",
		Rate:          "0.05",
		VIPAddress:    "0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789",
		Proposer:      "Example Labs",
		Email:         "ops@example.org",
		ProjectURL:    "https://example.org",
		XAccount:      "https://x.com/example",
		ProtocolType:  "Gaming",
		Docs:          "https://docs.example.org",
		Audits:        "N/A",
		TLDR:          "Whitelist Example Rollup for VIP with an activity-based scoring policy.",
		Background:    "Example Rollup runs on-chain games.",
		Rationale:     "VIP rewards bring users who play and stay.",
		ScoringPolicy: "score = 10 x games played + 1 x trades, per stage.",
		Deposit:       "100000000uinit",
		Metadata:      "https://forum.initia.xyz/t/example-rollup-vip-whitelist",
	}
}

func mustCheck(t *testing.T, r Request) *Checked {
	t.Helper()
	c, err := r.Check()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct{ in, want, pct, bcs string }{
		{"0", "0", "0%", "0100"},
		{"1", "1", "100%", "08000064a7b3b6e00d"},
		{"1.000", "1", "100%", "08000064a7b3b6e00d"},
		{"0.05", "0.05", "5%", "070000c52ebca2b1"},
		{".5", "0.5", "50%", "080000b2d3595bf006"},
		{"0.000000000000000001", "0.000000000000000001", "0.0000000000000001%", "0101"},
	} {
		r, err := ParseRate(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if r.String() != tc.want || r.Percent() != tc.pct || hex.EncodeToString(r.BCS()) != tc.bcs {
			t.Errorf("%q: %s %s %x, want %s %s %s", tc.in, r, r.Percent(), r.BCS(), tc.want, tc.pct, tc.bcs)
		}
	}
	for _, in := range []string{"", "1.0000000000000000001", "1.01", "2", "-0.1", "+0.1", "1e-2", "0.", ".", "0,5", "5%", "0x1"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// Each refused input is named in the error, alone.
func TestCheckRefusesEachBadField(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*Request)
	}{
		{"network", func(r *Request) { r.Network = "devnet" }},
		{"name", func(r *Request) { r.Name = " " }},
		{"chain-id", func(r *Request) { r.ChainID = "" }},
		{"vm", func(r *Request) { r.VM = "solana" }},
		{"operator", func(r *Request) { r.Operator = "" }},
		{"operator", func(r *Request) { r.Operator = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu" }},
		{"operator", func(r *Request) { r.Operator = "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd8" }},
		{"operator", func(r *Request) { r.Operator = "0x0" }},
		{"operator", func(r *Request) { r.Operator = "0x" + strings.Repeat("a", 65) }},
		{"bridge-id", func(r *Request) { r.BridgeID = 0 }},
		{"bridge-address", func(r *Request) { r.BridgeAddress = "0xzz" }},
		{"score-contract", func(r *Request) { r.ScoreContract = "" }},
		{"score-contract", func(r *Request) { r.ScoreContract = "0x5FbDB2315678afecb367f032d93F642f64180a" }},
		{"score-contract", func(r *Request) { r.ScoreContract = "0x0000000000000000000000000000000000000000" }},
		{"score-contract", func(r *Request) { r.VM = vip.Wasm }},
		{"score-contract", func(r *Request) {
			r.VM = vip.Move
			r.ScoreContract = "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7"
		}},
		{"max-rate", func(r *Request) { r.MaxRate = "1.5" }},
		{"max-change-rate", func(r *Request) { r.MaxChangeRate = "-0.01" }},
		{"rate", func(r *Request) { r.Rate = "" }},
		{"rate", func(r *Request) { r.Rate = "0.25" }}, // above the max rate 0.2
		{"vip-address", func(r *Request) { r.VIPAddress = "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7" }},
		{"sender", func(r *Request) { r.Sender = "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7" }},
		{"proposer", func(r *Request) { r.Proposer = "" }},
		{"tldr", func(r *Request) { r.TLDR = "" }},
		{"scoring-policy", func(r *Request) { r.ScoringPolicy = "" }},
		{"deposit", func(r *Request) { r.Deposit = "" }},
		{"deposit", func(r *Request) { r.Deposit = "100" }},
	} {
		r := sample()
		tc.edit(&r)
		_, err := r.Check()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%s: got %v", tc.field, err)
			continue
		}
		if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
			t.Errorf("%s: %d errors, want only this one: %v", tc.field, n, err)
		}
	}
	// Testnet needs no forum post or deposit; 0x1 may sign.
	r := sample()
	r.Network, r.Proposer, r.TLDR, r.ScoringPolicy, r.Deposit, r.Sender = "testnet", "", "", "", "", "0x1"
	if _, err := r.Check(); err != nil {
		t.Fatal(err)
	}
	// Every error at once, each named.
	_, err := Request{}.Check()
	for _, f := range []string{"network", "name", "chain-id", "vm", "operator", "bridge-id", "bridge-address", "score-contract", "max-rate", "rate", "vip-address"} {
		if !strings.Contains(err.Error(), f+": ") {
			t.Errorf("the empty request's error does not name %s: %v", f, err)
		}
	}
}

func TestRegisterArgsFollowTheSignature(t *testing.T) {
	c := mustCheck(t, sample())
	args := c.RegisterArgs()
	want := []string{
		// operator: the 20-byte account left-padded to a 32-byte Move address
		"000000000000000000000000" + "0102030405060708090a0b0c0d0e0f1011121314",
		"1d00000000000000", // bridge_id 29, u64 little-endian
		"6a0d84bd2d2f8b2e6ffef1f2b6c1f1c4c3b8d1a0e3b4b7c9d2f3e4a5b6c7d8e9",
		"2a" + hex.EncodeToString([]byte("0x5FbDB2315678afecb367f032d93F642f64180aa3")), // String: length 42, bytes
		"08000014bbf08ac602", // 0.2 x 10^18 little-endian, vector<u8>
		"070000c16ff28623",   // 0.01
		"070000c52ebca2b1",   // 0.05
		"0200000000000000",   // vm_type EVM
	}
	if len(args) != len(want) {
		t.Fatalf("%d args", len(args))
	}
	for i := range want {
		if hex.EncodeToString(args[i]) != want[i] {
			t.Errorf("arg %d: %x, want %s", i, args[i], want[i])
		}
	}
	m := c.MsgGovExecute()
	if m.Authority != "init10d07y265gmmuvt4z0w9aw880jnsr700j55nka3" || m.ModuleAddress != sample().VIPAddress ||
		m.ModuleName != "vip" || m.FunctionName != "register" || len(m.TypeArgs) != 0 {
		t.Fatalf("%+v", m)
	}
	if got, _ := ParseL1Address(m.Sender); "0x"+hex.EncodeToString(got[:]) != sample().VIPAddress {
		t.Fatalf("sender %s is not the vip module", m.Sender)
	}
}

// The MsgSubmitProposal survives the chain's binary encoding with its MsgGovExecute intact.
func TestSubmitProposalRoundTrip(t *testing.T) {
	c := mustCheck(t, sample())
	m, err := c.SubmitProposal("init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7")
	if err != nil {
		t.Fatal(err)
	}
	bz, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back govv1.MsgSubmitProposal
	if err := proto.Unmarshal(bz, &back); err != nil {
		t.Fatal(err)
	}
	if err := codectypes.UnpackInterfaces(&back, Codec().InterfaceRegistry()); err != nil {
		t.Fatal(err)
	}
	msgs, err := back.GetMsgs()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%d msgs, %v", len(msgs), err)
	}
	got, ok := msgs[0].(*initiamove.MsgGovExecute)
	if !ok || !proto.Equal(got, c.MsgGovExecute()) {
		t.Fatalf("the proposal holds %T %+v", msgs[0], msgs[0])
	}
	if back.Proposer != "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7" || back.InitialDeposit.String() != "100000000uinit" || back.Title != "Whitelist Example Rollup on VIP" {
		t.Fatalf("%+v", back)
	}
	if _, err := c.SubmitProposal("init1bad"); err == nil {
		t.Fatal("a bad proposer address was accepted")
	}
}

func TestGoldenFiles(t *testing.T) {
	c := mustCheck(t, sample())
	proposal, err := c.ProposalFile()
	if err != nil {
		t.Fatal(err)
	}
	submit, err := c.SubmitProposalJSON("init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7")
	if err != nil {
		t.Fatal(err)
	}
	r := sample()
	r.Network = "testnet"
	r.VM, r.ScoreContract = vip.Wasm, "init15zs69gay5kn2029f4246etdw47ctrv4nkj6mddachxath09ah6lstd0jep"
	tn := mustCheck(t, r)
	for name, got := range map[string][]byte{
		"forum-post.md":            []byte(c.ForumPost()),
		"proposal.json":            proposal,
		"msg-submit-proposal.json": submit,
		"testnet-note.md":          []byte(tn.TestnetNote()),
	} {
		path := filepath.Join(golden, name)
		if *update {
			if err := os.MkdirAll(golden, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test -update writes it)", err)
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the golden file:\n%s", name, got)
		}
	}
}

// The JSON files decode with the chain's JSON codec back into the same messages: the CLI's
// proposal file's message and the MsgSubmitProposal.
func TestProposalJSONDecodes(t *testing.T) {
	c := mustCheck(t, sample())
	cdc := Codec()
	file, err := c.ProposalFile()
	if err != nil {
		t.Fatal(err)
	}
	var pf struct {
		Messages []json.RawMessage `json:"messages"`
		Deposit  string            `json:"deposit"`
	}
	if err := json.Unmarshal(file, &pf); err != nil || len(pf.Messages) != 1 || pf.Deposit != "100000000uinit" {
		t.Fatalf("%s %v", file, err)
	}
	var msg sdk.Msg
	if err := cdc.UnmarshalInterfaceJSON(pf.Messages[0], &msg); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(msg, c.MsgGovExecute()) {
		t.Fatalf("%+v", msg)
	}
	submit, err := c.SubmitProposalJSON("init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7")
	if err != nil {
		t.Fatal(err)
	}
	if err := cdc.UnmarshalInterfaceJSON(submit, &msg); err != nil {
		t.Fatal(err)
	}
	back, ok := msg.(*govv1.MsgSubmitProposal)
	if !ok {
		t.Fatalf("decoded %T", msg)
	}
	msgs, err := back.GetMsgs()
	if err != nil || len(msgs) != 1 || !proto.Equal(msgs[0], c.MsgGovExecute()) || back.InitialDeposit.String() != "100000000uinit" {
		t.Fatalf("%+v %v", back, err)
	}
}
