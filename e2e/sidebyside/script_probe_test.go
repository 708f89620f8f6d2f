package sidebyside_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moveScriptProbe runs scripts on both sides through MsgScript: one that returns, one that
// aborts with 42, and a generic one given type arguments (a struct, a vector, none, a struct
// that does not exist). Compared: each tx's code and codespace, its events' types, and the
// refusal's words (figures and addresses masked).
var moveScriptProbe = probe{name: "Move MsgScript, returning, aborting and generic", vms: []vip.VM{vip.Move}, ask: moveScripts, timeout: time.Minute}

// scripts are the two scripts, compiled once, each in a package of its own (the compiler
// names a package's scripts by name and index).
var scripts = sync.OnceValues(func() (map[string][]byte, error) {
	c, err := movevm.OpenCompiler(movevm.Dir())
	if err != nil {
		return nil, err
	}
	sources := map[string]string{
		"returns": "script {\n    fun returns(_s: &signer, _n: u64) {}\n}\n",
		"aborts":  "script {\n    fun aborts(_s: &signer) { abort 42 }\n}\n",
		"generic": "script {\n    fun generic<T>(_s: &signer) {}\n}\n",
	}
	out := map[string][]byte{}
	for name, src := range sources {
		pkg, err := os.MkdirTemp("", "vipharness-script-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(pkg)
		if err := os.MkdirAll(filepath.Join(pkg, "sources"), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(pkg, "Move.toml"), []byte("[package]\nname = \"probe\"\nversion = \"0.0.1\"\n"), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(pkg, "sources", name+".move"), []byte(src), 0o644); err != nil {
			return nil, err
		}
		if err := c.Build(context.Background(), pkg, map[string]movebcs.Address{}); err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		if out[name], err = os.ReadFile(filepath.Join(pkg, "build", "probe", "bytecode_scripts", name+"_0.mv")); err != nil {
			return nil, err
		}
	}
	return out, nil
})

func moveScripts(ctx context.Context, r localnet.Rollup) (answer, error) {
	code, err := scripts()
	if err != nil {
		return answer{}, err
	}
	c, s, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	var parts []string
	for _, m := range []sdk.Msg{
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["returns"], Args: [][]byte{movebcs.ArgU64(7)}},
		&initiamove.MsgScriptJSON{Sender: s.Address, CodeBytes: code["returns"], Args: []string{`"7"`}},
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["aborts"]},
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["generic"], TypeArgs: []string{"0x1::fungible_asset::Metadata"}},
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["generic"], TypeArgs: []string{"vector<u64>"}},
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["generic"]},
		&initiamove.MsgScript{Sender: s.Address, CodeBytes: code["generic"], TypeArgs: []string{"0x1::no_such::T"}},
	} {
		res, err := c.Send(ctx, s, 300_000, m)
		if err != nil {
			return answer{}, err
		}
		var types []string
		for _, ev := range res.Events {
			if ev.Type == "script" || ev.Type == "move" {
				types = append(types, ev.Type)
			}
		}
		line, _, _ := strings.Cut(res.RawLog, "\n")
		parts = append(parts, fmt.Sprintf("code %d %q events %v log %q", res.Code, res.Codespace, types, masked(line)))
	}
	return answer{Value: strings.Join(parts, "; ")}, nil
}
