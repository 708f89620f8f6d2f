package move

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/vipharness/vipharness/bindings/initiamove"
)

// Function is one public function of the vip_score module as its ABI describes it.
type Function struct {
	Name    string   `json:"name"`
	IsEntry bool     `json:"is_entry"`
	IsView  bool     `json:"is_view"`
	Params  []string `json:"params"`
	Return  []string `json:"return"`
}

// OfficialFunctions are the entry and view functions of the official vip_score module
// (initia-labs/vip-score-move, compiled against MinitiaStdlib), with the module's own address
// written as vip_score; what the program's agent calls and reads.
var OfficialFunctions = []Function{
	{Name: "add_deployer_script", IsEntry: true, Params: []string{"&signer", "address"}},
	{Name: "remove_deployer_script", IsEntry: true, Params: []string{"&signer", "address"}},
	{Name: "set_init_stage", IsEntry: true, Params: []string{"&signer", "u64"}},
	{Name: "update_score_script", IsEntry: true, Params: []string{"&signer", "u64", "vector<address>", "vector<u64>"}},
	{Name: "finalize_script", IsEntry: true, Params: []string{"&signer", "u64"}},
	{Name: "get_score", IsView: true, Params: []string{"address", "u64"}, Return: []string{"u64"}},
	{Name: "get_total_score", IsView: true, Params: []string{"u64"}, Return: []string{"u64"}},
	{Name: "get_scores", IsView: true, Params: []string{"u64", "u16", "0x1::option::Option<address>"}, Return: []string{"vip_score::vip_score::GetScoresResponse"}},
}

// CheckInterface reads the published module's ABI through the REST modules route and checks
// every official entry and view function: its kind, parameters and return types.
func (s *Contract) CheckInterface(ctx context.Context) (string, error) {
	if err := s.needModule(); err != nil {
		return "", err
	}
	var mod initiamove.QueryModuleResponse
	if err := s.C.Get(ctx, "/initia/move/v1/accounts/"+s.owner.Short()+"/modules/"+ModuleName, &mod); err != nil {
		return "", fmt.Errorf("read module %s::%s: %w", s.owner.Short(), ModuleName, err)
	}
	var abi struct {
		Functions []Function `json:"exposed_functions"`
	}
	if err := json.Unmarshal([]byte(mod.Module.Abi), &abi); err != nil {
		return "", fmt.Errorf("module %s::%s: ABI: %w", s.owner.Short(), ModuleName, err)
	}
	// The module's own address reads as vip_score, as in the official build.
	own := regexp.MustCompile(`0x0*` + strings.TrimPrefix(s.owner.Short(), "0x") + `::`)
	var problems []string
	for _, want := range OfficialFunctions {
		i := slices.IndexFunc(abi.Functions, func(f Function) bool { return f.Name == want.Name })
		if i < 0 {
			problems = append(problems, want.Name+" is missing")
			continue
		}
		got := abi.Functions[i]
		norm := func(ts []string) []string {
			out := make([]string, len(ts))
			for j, t := range ts {
				out[j] = own.ReplaceAllString(t, "vip_score::")
			}
			return out
		}
		if got.IsEntry != want.IsEntry || got.IsView != want.IsView || !slices.Equal(norm(got.Params), want.Params) || !slices.Equal(norm(got.Return), want.Return) {
			problems = append(problems, fmt.Sprintf("%s is (entry %t, view %t, %v) -> %v, want (entry %t, view %t, %v) -> %v",
				want.Name, got.IsEntry, got.IsView, norm(got.Params), norm(got.Return), want.IsEntry, want.IsView, want.Params, want.Return))
		}
	}
	if len(problems) > 0 {
		return "", fmt.Errorf("module %s::%s differs from the official interface: %s", s.owner.Short(), ModuleName, strings.Join(problems, "; "))
	}
	return fmt.Sprintf("%d entry and view functions as the official module's", len(OfficialFunctions)), nil
}
