package sidebyside_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
)

// moveViewProbe posts view calls to x/move's JSON and BCS view routes that succeed and that
// fail the ways a client's mistakes make them fail (a function that is not a view, a missing
// module or function, a wrong number of arguments, an argument that does not parse, an abort
// in the view), and compares each answer's status, gRPC code and words (figures masked).
var moveViewProbe = probe{name: "Move view calls, good and bad", vms: []vip.VM{vip.Move}, ask: moveViews, timeout: time.Minute}

func moveViews(ctx context.Context, r localnet.Rollup) (answer, error) {
	type call struct {
		route string
		body  map[string]any
	}
	jsonView := func(module, fn string, typeArgs []string, args ...string) call {
		if typeArgs == nil {
			typeArgs = []string{}
		}
		if args == nil {
			args = []string{}
		}
		return call{"/initia/move/v1/view/json", map[string]any{"address": "0x1", "module_name": module, "function_name": fn, "type_args": typeArgs, "args": args}}
	}
	fa := []string{"0x1::fungible_asset::Metadata"}
	c, _, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	feeMetadata, err := xmove.MetadataOf(c.GasPrice().Denom)
	if err != nil {
		return answer{}, err
	}
	calls := []call{
		jsonView("coin", "metadata", nil, `"0x1"`, `"umin"`),
		jsonView("coin", "transfer", nil),
		jsonView("no_such_module", "f", nil),
		jsonView("coin", "no_such_function", nil),
		jsonView("coin", "metadata", nil, `"0x1"`),
		jsonView("coin", "metadata", nil, `"not an address"`, `"umin"`),
		jsonView("fungible_asset", "symbol", fa, `"`+feeMetadata.String()+`"`),
		jsonView("fungible_asset", "symbol", fa, `"0x2"`),
		jsonView("fungible_asset", "symbol", []string{"0x1::no_such::T"}, `"0x2"`),
		{"/initia/move/v1/view", map[string]any{"address": "0x1", "module_name": "coin", "function_name": "metadata", "type_args": []string{}, "args": []string{"AAAA"}}},
		{"/initia/move/v1/view/json", map[string]any{"address": "nope", "module_name": "coin", "function_name": "metadata", "type_args": []string{}, "args": []string{}}},
	}
	rest := r.Endpoints().REST
	var parts []string
	for _, c := range calls {
		b, _ := json.Marshal(c.body)
		status, raw, err := roundTrip(ctx, http.MethodPost, rest+c.route, b)
		if err != nil {
			return answer{}, err
		}
		var v map[string]any
		_ = json.Unmarshal(raw, &v)
		line := fmt.Sprintf("%s %s.%s: %d", c.route, c.body["module_name"], c.body["function_name"], status)
		if status == http.StatusOK {
			line += " keys " + shape(v)
		} else {
			msg, _ := v["message"].(string)
			line += fmt.Sprintf(" code %v %q", v["code"], masked(firstLine(msg)))
		}
		parts = append(parts, line)
	}
	return answer{Value: strings.Join(parts, "\n")}, nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
