package sidebyside_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
)

// moveCoinProbe: an account issues a coin in Move (0x1::managed_coin) and mints it to itself
// and to an address with no account; then the bank's lists are read: each holder's balances
// (whole and a page of one), the total supply, and x/move's denom of the coin's metadata. A
// minimove's bank lists every coin an owner holds and every coin issued, from the primary
// fungible store's tables, so the Move coin shows up beside the fee denom. Compared with the
// coin's denom and the fee amounts (which the fees paid move) masked.
var moveCoinProbe = probe{name: "Move a coin issued in Move, in the bank's lists", vms: []vip.VM{vip.Move}, ask: moveCoin, timeout: 2 * time.Minute}

func moveCoin(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, funded, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	owner, err := newFundedSigner(ctx, c, funded)
	if err != nil {
		return answer{}, fmt.Errorf("issuer: %w", err)
	}
	issuer := movebcs.AccountAddress(owner.Key.PubKey().Address())
	// managed_coin names the coin's metadata object by its symbol under the issuer.
	metadata := xmove.NamedObjectAddress(issuer, "PRB")
	holder := movebcs.AccountAddress(fresh().Bytes())
	call := func(fn string, args ...string) *initiamove.MsgExecuteJSON {
		return &initiamove.MsgExecuteJSON{Sender: owner.Address, ModuleAddress: "0x1", ModuleName: "managed_coin", FunctionName: fn, Args: args}
	}
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	if err := okTx(c.Exec(ctx, owner,
		call("initialize", "null", q("Probe Coin"), q("PRB"), "6", q(""), q("")),
		call("mint_to", q(issuer.String()), q(metadata.String()), q("1000")),
		call("mint_to", q(holder.String()), q(metadata.String()), q("250")),
	)); err != nil {
		return answer{}, fmt.Errorf("issue a coin: %w", err)
	}
	denom := "move/" + strings.TrimPrefix(metadata.String(), "0x")
	fee := c.GasPrice().Denom
	feeAmount := regexp.MustCompile(`\{"amount":"[0-9]+","denom":"` + regexp.QuoteMeta(fee) + `"\}`)
	mask := func(v any) string {
		b, _ := json.Marshal(v)
		s := strings.ReplaceAll(string(b), denom, "move/COIN")
		// The fee denom's figures depend on the fees paid; the Move coin's are fixed.
		return feeAmount.ReplaceAllString(s, `{"amount":"N","denom":"`+fee+`"}`)
	}
	rest := r.Endpoints().REST
	holderBech32 := c.Enc.MustAddr(holder[12:])
	var parts []string
	for _, path := range []string{
		"/cosmos/bank/v1beta1/balances/" + owner.Address,
		"/cosmos/bank/v1beta1/balances/" + owner.Address + "?pagination.limit=1&pagination.count_total=true",
		"/cosmos/bank/v1beta1/balances/" + owner.Address + "?pagination.limit=1&pagination.reverse=true",
		"/cosmos/bank/v1beta1/balances/" + holderBech32,
		"/cosmos/bank/v1beta1/spendable_balances/" + holderBech32,
		"/cosmos/bank/v1beta1/supply",
		"/cosmos/bank/v1beta1/supply/by_denom?denom=" + denom,
		"/initia/move/v1/denom?metadata=" + metadata.String(),
	} {
		paged := strings.Contains(path, "pagination.limit=1")
		a, err := get(ctx, rest+path, func(v any) string {
			if m, ok := v.(map[string]any); ok {
				if b, ok := m["balances"].([]any); ok && paged {
					// Which coin comes first follows the metadata addresses, the chain's own.
					m["balances"] = fmt.Sprintf("%d coin(s)", len(b))
				}
				if p, ok := m["pagination"].(map[string]any); ok && p["next_key"] != nil {
					// A store key of the table's entry: the chain's own bytes, their length alike.
					k, _ := base64.StdEncoding.DecodeString(fmt.Sprint(p["next_key"]))
					p["next_key"] = fmt.Sprintf("KEY of %d bytes", len(k))
				}
			}
			return mask(v)
		})
		if err != nil {
			return answer{}, err
		}
		if a.Status != http.StatusOK {
			return answer{}, fmt.Errorf("GET %s: %s", path, a)
		}
		path = strings.NewReplacer(owner.Address, "ISSUER", holderBech32, "HOLDER", denom, "move/COIN", metadata.String(), "METADATA").Replace(path)
		parts = append(parts, path+" "+a.Shape)
	}
	return answer{Value: strings.Join(parts, "\n")}, nil
}
