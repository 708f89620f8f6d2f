package devnode

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// noVM is an executor without messages or queries: the core's own routes, bank sends only.
type noVM struct{}

func (noVM) Module() string                                  { return "none" }
func (noVM) RegisterInterfaces(codectypes.InterfaceRegistry) {}
func (noVM) MsgTypeURLs() []string                           { return nil }
func (noVM) Queries() []Query                                { return nil }
func (noVM) Execute(*Context, sdk.Msg) (proto.Message, error) {
	panic("noVM runs no messages")
}

func startCore(t *testing.T) *Node {
	t.Helper()
	n, err := Start(context.Background(), noVM{}, WithFundedMnemonics(devMnemonic), WithGeneratedAccounts(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// sender signs bank sends from the first funded account through the node's faces.
type sender struct {
	c *cosmostx.Client
	s *cosmostx.Signer
	n *Node
}

func newSender(t *testing.T, n *Node) *sender {
	t.Helper()
	c, err := cosmostx.New(n.RPCURL(), n.RESTURL(), n.ChainID(), n.Encoding(), sdk.NewDecCoinFromDec(n.FeeDenom(), n.MinGasPrice()))
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Signer(context.Background(), n.Funded()[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	return &sender{c: c, s: s, n: n}
}

// send moves amount umin to the second funded account.
func (x *sender) send(t *testing.T, amount int64) *sdk.TxResponse {
	t.Helper()
	res, err := x.c.Exec(context.Background(), x.s, &banktypes.MsgSend{FromAddress: x.s.Address, ToAddress: x.n.Funded()[1].Address, Amount: sdk.NewCoins(sdk.NewInt64Coin(x.n.FeeDenom(), amount))})
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return res
}

// getJSON fetches path from the REST face as a client sees it: the status and generic JSON.
func getJSON(t *testing.T, n *Node, path string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(n.RESTURL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %s: %v", path, body, err)
	}
	return res.StatusCode, out
}

// dig walks a JSON value along keys (a number walks into an array).
func dig(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// gatewayError checks a {code,message,details} reply with the given HTTP status and gRPC code.
func gatewayError(t *testing.T, path string, status int, body map[string]any, wantStatus int, wantCode float64, wantMsg string) {
	t.Helper()
	msg, _ := body["message"].(string)
	if status != wantStatus || body["code"] != wantCode || !strings.Contains(msg, wantMsg) || !reflect.DeepEqual(body["details"], []any{}) {
		t.Fatalf("%s: HTTP %d %v, want HTTP %d code %v with %q", path, status, body, wantStatus, wantCode, wantMsg)
	}
}

func TestFeeDiscoveryRoutes(t *testing.T) {
	n := startCore(t)
	price := map[string]any{"denom": "umin", "amount": "0.150000000000000000"}
	for _, tc := range []struct {
		path string
		keys []any
		want any
	}{
		{"/opinit/opchild/v1/params", []any{"params", "min_gas_prices"}, []any{price}},
		{"/opinit/opchild/v1/params", []any{"params", "hook_max_gas"}, "3000000"},
		{"/initia/tx/v1/gas_prices", []any{"gas_prices"}, []any{price}},
		{"/initia/tx/v1/gas_prices/umin", []any{"gas_price"}, price},
	} {
		status, body := getJSON(t, n, tc.path)
		if got := dig(body, tc.keys...); status != 200 || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: HTTP %d %#v, want %#v", tc.path, tc.keys, status, got, tc.want)
		}
	}
	status, body := getJSON(t, n, "/initia/tx/v1/gas_prices/uinit")
	gatewayError(t, "gas_prices/uinit", status, body, 404, 5, "not a fee denom")
}

func TestBlockAndSyncingRoutes(t *testing.T) {
	n := startCore(t)
	newSender(t, n).send(t, 1) // block 2 holds a tx
	for _, tc := range []struct {
		path string
		keys []any
		want any
	}{
		{"/cosmos/base/tendermint/v1beta1/blocks/latest", []any{"block", "header", "height"}, "2"},
		{"/cosmos/base/tendermint/v1beta1/blocks/latest", []any{"sdk_block", "header", "chain_id"}, DefaultChainID},
		{"/cosmos/base/tendermint/v1beta1/blocks/1", []any{"block", "header", "height"}, "1"},
		{"/cosmos/base/tendermint/v1beta1/blocks/1", []any{"block", "data", "txs"}, []any{}},
		{"/cosmos/base/tendermint/v1beta1/syncing", []any{"syncing"}, false},
	} {
		status, body := getJSON(t, n, tc.path)
		if got := dig(body, tc.keys...); status != 200 || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: HTTP %d %#v, want %#v", tc.path, tc.keys, status, got, tc.want)
		}
	}
	// Hashes are base64 (bytes in protobuf JSON), the SDK block's proposer a valcons address.
	_, body := getJSON(t, n, "/cosmos/base/tendermint/v1beta1/blocks/2")
	if hash, _ := dig(body, "block_id", "hash").(string); len(hash) != 44 {
		t.Errorf("block_id.hash %q: want 32 bytes in base64", hash)
	}
	if txs, _ := dig(body, "block", "data", "txs").([]any); len(txs) != 1 {
		t.Errorf("block 2 txs %v, want the send", dig(body, "block", "data", "txs"))
	}
	if p, _ := dig(body, "sdk_block", "header", "proposer_address").(string); !strings.HasPrefix(p, "initvalcons1") {
		t.Errorf("sdk_block proposer %q, want an initvalcons address", p)
	}
	for _, tc := range []struct {
		path   string
		status int
		code   float64
		msg    string
	}{
		{"/cosmos/base/tendermint/v1beta1/blocks/9", 400, 3, "requested block height is bigger then the chain length"},
		{"/cosmos/base/tendermint/v1beta1/blocks/0", 500, 2, "height must be greater than 0"},
		{"/cosmos/base/tendermint/v1beta1/blocks/tip", 400, 3, "type mismatch, parameter: height"},
	} {
		status, body := getJSON(t, n, tc.path)
		gatewayError(t, tc.path, status, body, tc.status, tc.code, tc.msg)
	}
}

func TestTxSearchRoute(t *testing.T) {
	n := startCore(t)
	x := newSender(t, n)
	for i := range 3 {
		x.send(t, int64(i+1))
	}
	q := "/cosmos/tx/v1beta1/txs?query=" + url.QueryEscape("message.sender='"+x.s.Address+"'")
	for _, tc := range []struct {
		name    string
		path    string
		total   string
		heights []any
	}{
		{"ascending by default", q, "3", []any{"2", "3", "4"}},
		{"descending", q + "&order_by=ORDER_BY_DESC", "3", []any{"4", "3", "2"}},
		{"order by number", q + "&order_by=2", "3", []any{"4", "3", "2"}},
		{"second page", q + "&page=2&limit=2", "3", []any{"4"}},
		{"by amount", "/cosmos/tx/v1beta1/txs?query=" + url.QueryEscape("transfer.amount='2umin'"), "1", []any{"3"}},
		{"no match", "/cosmos/tx/v1beta1/txs?query=" + url.QueryEscape("tx.height=1"), "0", []any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := getJSON(t, n, tc.path)
			if status != 200 || body["total"] != tc.total {
				t.Fatalf("HTTP %d total %#v, want %s", status, body["total"], tc.total)
			}
			resps, _ := body["tx_responses"].([]any)
			txs, _ := body["txs"].([]any)
			heights := []any{}
			for _, r := range resps {
				heights = append(heights, dig(r, "height"))
				if c := dig(r, "code"); c != 0.0 {
					t.Errorf("code %v", c)
				}
				if ty := dig(r, "tx", "@type"); ty != "/cosmos.tx.v1beta1.Tx" {
					t.Errorf("tx_response.tx @type %v", ty)
				}
			}
			if !reflect.DeepEqual(heights, tc.heights) || len(txs) != len(resps) {
				t.Fatalf("heights %v (%d txs), want %v", heights, len(txs), tc.heights)
			}
		})
	}
	for _, tc := range []struct {
		path   string
		status int
		code   float64
		msg    string
	}{
		{"/cosmos/tx/v1beta1/txs", 500, 13, "query cannot be empty"},
		{"/cosmos/tx/v1beta1/txs?query=" + url.QueryEscape("message.sender="), 500, 13, "failed to search for txs"},
		{q + "&page=5&limit=2", 500, 13, "page should be within [1, 2] range, given 5"},
		{q + "&page=first", 400, 3, "type mismatch, parameter: page"},
		{q + "&order_by=SIDEWAYS", 400, 3, "order_by"},
	} {
		status, body := getJSON(t, n, tc.path)
		gatewayError(t, tc.path, status, body, tc.status, tc.code, tc.msg)
	}
}

// inMode signs as its key does, declaring mode: the node must verify the sign bytes of mode.
type inMode struct {
	keys.Signer
	mode signing.SignMode
}

func (s inMode) CosmosSignMode() signing.SignMode { return s.mode }

// Initia's tx config takes DIRECT, DIRECT_AUX, LEGACY_AMINO_JSON and EIP_191 (EIP_191 is
// proven with the Ledger stand-in in deployer/vm/cosmostx; DIRECT_AUX needs a fee payer beside the
// aux signer, as the SDK refuses it for the payer); a signature over other bytes is refused.
func TestSignModes(t *testing.T) {
	n := startCore(t)
	x := newSender(t, n)
	ctx := context.Background()
	soft, err := keys.FromPrivKey(n.Funded()[0].Key, "key")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		signer keys.Signer
		ok     bool
	}{
		{"LEGACY_AMINO_JSON", inMode{soft, signing.SignMode_SIGN_MODE_LEGACY_AMINO_JSON}, true},
		{"other bytes declared as LEGACY_AMINO_JSON", wrongBytes{inMode{soft, signing.SignMode_SIGN_MODE_LEGACY_AMINO_JSON}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &cosmostx.Signer{Key: tc.signer, Address: x.s.Address, Number: x.s.Number, Sequence: x.s.Sequence}
			send := &banktypes.MsgSend{FromAddress: s.Address, ToAddress: n.Funded()[1].Address, Amount: sdk.NewCoins(sdk.NewInt64Coin(n.FeeDenom(), 5))}
			tx, err := x.c.SignTx(ctx, s, 200_000, send)
			if err != nil {
				t.Fatal(err)
			}
			res, err := x.c.Broadcast(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			if tc.ok != (res.Code == 0) || !tc.ok && !strings.Contains(res.Log, "signature verification failed") {
				t.Fatalf("code %d log %q", res.Code, res.Log)
			}
			if res.Code == 0 {
				x.s.Sequence++
			}
		})
	}
}

// wrongBytes signs bytes other than the tx's sign doc.
type wrongBytes struct{ inMode }

func (w wrongBytes) SignCosmos(ctx context.Context, _ []byte) ([]byte, error) {
	return w.inMode.Signer.SignCosmos(ctx, []byte("not the sign doc of this tx"))
}
