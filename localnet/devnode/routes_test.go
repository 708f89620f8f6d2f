package devnode

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/vipharness/vipharness/deployer/cosmostx"
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
