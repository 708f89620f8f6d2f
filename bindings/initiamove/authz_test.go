package initiamove

import (
	"strings"
	"testing"

	storetypes "cosmossdk.io/store/types"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

func TestWildcard(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "update_score_script", true},
		{"*", "", true},
		{"", "", true},
		{"", "a", false},
		{"update_*", "update_score_script", true},
		{"update_*", "finalize_script", false},
		{"*_script", "finalize_script", true},
		{"*score*", "update_score_script", true},
		{"set_init_stag?", "set_init_stage", true},
		{"set_init_stag?", "set_init_stag", false},
		{"a*b*c", "aXbYc", true},
		{"a*b*c", "aXbY", false},
		{"finalize_script", "finalize_script", true},
		{"finalize_script", "finalize_scripts", false},
	}
	for _, tt := range tests {
		if got := wildcard(tt.pattern, tt.name); got != tt.want {
			t.Errorf("wildcard(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestExecuteAuthorizationValidateBasic(t *testing.T) {
	item := func(mod string, fns ...string) ExecuteAuthorizationItem {
		return ExecuteAuthorizationItem{ModuleAddress: "0x1", ModuleName: mod, FunctionNames: fns}
	}
	tests := []struct {
		name  string
		items []ExecuteAuthorizationItem
		want  string // "" when valid
	}{
		{"one module", []ExecuteAuthorizationItem{item("vip_score", "update_score_script", "finalize_*")}, ""},
		{"empty module name", []ExecuteAuthorizationItem{item("", "f")}, "empty module name"},
		{"no functions", []ExecuteAuthorizationItem{item("m")}, "empty function names"},
		{"empty function", []ExecuteAuthorizationItem{item("m", "")}, "empty function name"},
		{"duplicate function", []ExecuteAuthorizationItem{item("m", "f", "f")}, "duplicate function name: f"},
		{"module twice", []ExecuteAuthorizationItem{item("m", "f"), item("m", "g")}, "duplicate module name: m"},
		{"long module name", []ExecuteAuthorizationItem{item(strings.Repeat("m", 65), "f")}, "module name too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ExecuteAuthorization{Items: tt.items}.ValidateBasic()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("ValidateBasic: %v, want %q", err, tt.want)
			}
		})
	}
}

func TestExecuteAuthorizationAccept(t *testing.T) {
	ctx := sdk.NewContext(nil, cmtproto.Header{}, false, nil).WithGasMeter(storetypes.NewInfiniteGasMeter())
	grant := ExecuteAuthorization{Items: []ExecuteAuthorizationItem{
		{ModuleAddress: "0x00000000000000000000000000000000000000000000000000000000000000ab", ModuleName: "vip_score", FunctionNames: []string{"update_*"}},
	}}
	tests := []struct {
		name string
		msg  sdk.Msg
		want string // "" when accepted
	}{
		{"a granted function, the address short", &MsgExecute{ModuleAddress: "0xab", ModuleName: "vip_score", FunctionName: "update_score_script"}, ""},
		{"a function not granted", &MsgExecute{ModuleAddress: "0xab", ModuleName: "vip_score", FunctionName: "finalize_script"}, "unauthorized"},
		{"another module", &MsgExecute{ModuleAddress: "0xab", ModuleName: "other", FunctionName: "update_x"}, "unauthorized"},
		{"another address", &MsgExecute{ModuleAddress: "0xac", ModuleName: "vip_score", FunctionName: "update_x"}, "unauthorized"},
		{"a bad address", &MsgExecute{ModuleAddress: "0xzz", ModuleName: "vip_score", FunctionName: "update_x"}, "invalid module address"},
		{"another message", &MsgExecuteJSON{ModuleAddress: "0xab", ModuleName: "vip_score", FunctionName: "update_x"}, "unknown msg type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := grant.Accept(ctx, tt.msg)
			if tt.want == "" && (err != nil || !res.Accept) || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Accept: %+v, %v; want %q", res, err, tt.want)
			}
		})
	}
}
