package sidebyside_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/x/authz"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	vmmove "github.com/vipharness/vipharness/deployer/vm/move"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// moveAuthzProbe: an owner publishes the scoring module and grants a hot key x/move's
// ExecuteAuthorization for update_*; the hot key then runs, through authz MsgExec, an
// update (granted) and a finalize (not granted). Compared: each tx's code and codespace,
// the refusal's words, and the score read back through the view route.
var moveAuthzProbe = probe{name: "Move authz ExecuteAuthorization", vms: []vip.VM{vip.Move}, ask: moveAuthz, timeout: 2 * time.Minute}

func moveAuthz(ctx context.Context, r localnet.Rollup) (answer, error) {
	c, funded, err := fundedSigner(ctx, r)
	if err != nil {
		return answer{}, err
	}
	owner, err := newFundedSigner(ctx, c, funded)
	if err != nil {
		return answer{}, fmt.Errorf("owner: %w", err)
	}
	hot, err := newFundedSigner(ctx, c, funded)
	if err != nil {
		return answer{}, fmt.Errorf("hot key: %w", err)
	}
	var ownerAddr movebcs.Address
	copy(ownerAddr[12:], owner.Key.PubKey().Address())
	code, err := vmmove.Builder(movevm.LazyCompiler(movevm.Dir()))(ctx, ownerAddr)
	if err != nil {
		return answer{}, err
	}
	call := func(fn string, args ...[]byte) *initiamove.MsgExecute {
		return &initiamove.MsgExecute{Sender: owner.Address, ModuleAddress: ownerAddr.Short(), ModuleName: "vip_score", FunctionName: fn, Args: args}
	}
	if err := okTx(c.Exec(ctx, owner, &initiamove.MsgPublish{Sender: owner.Address, CodeBytes: [][]byte{code}, UpgradePolicy: initiamove.COMPATIBLE},
		call("add_deployer_script", ownerAddr[:]), call("set_init_stage", movebcs.ArgU64(3)))); err != nil {
		return answer{}, fmt.Errorf("publish: %w", err)
	}
	grant, err := codectypes.NewAnyWithValue(&initiamove.ExecuteAuthorization{Items: []initiamove.ExecuteAuthorizationItem{
		{ModuleAddress: ownerAddr.String(), ModuleName: "vip_score", FunctionNames: []string{"update_*"}}}})
	if err != nil {
		return answer{}, err
	}
	expires := time.Now().Add(time.Hour)
	granted, err := c.Exec(ctx, owner, &authz.MsgGrant{Granter: owner.Address, Grantee: hot.Address, Grant: authz.Grant{Authorization: grant, Expiration: &expires}})
	if err != nil {
		return answer{}, fmt.Errorf("grant: %w", err)
	}
	user := movebcs.AccountAddress(fresh().Bytes())
	exec := func(m *initiamove.MsgExecute) (*sdk.TxResponse, error) {
		any, err := codectypes.NewAnyWithValue(m)
		if err != nil {
			return nil, err
		}
		return c.Send(ctx, hot, 400_000, &authz.MsgExec{Grantee: hot.Address, Msgs: []*codectypes.Any{any}})
	}
	update, err := exec(call("update_score_script", movebcs.ArgU64(3), movebcs.ArgAddresses([]movebcs.Address{user}), movebcs.ArgU64s([]uint64{7})))
	if err != nil {
		return answer{}, fmt.Errorf("exec update: %w", err)
	}
	finalize, err := exec(call("finalize_script", movebcs.ArgU64(3)))
	if err != nil {
		return answer{}, fmt.Errorf("exec finalize: %w", err)
	}
	score, err := viewJSON(ctx, r.Endpoints().REST, ownerAddr.String(), "get_score", fmt.Sprintf("%q", user.String()), `"3"`)
	if err != nil {
		return answer{}, err
	}
	line, _, _ := strings.Cut(finalize.RawLog, "\n")
	return answer{Value: fmt.Sprintf("grant %d; update %d %q; finalize %d %q %q; score %s",
		granted.Code, update.Code, update.Codespace, finalize.Code, finalize.Codespace, masked(line), score)}, nil
}

// newFundedSigner makes a fresh eth_secp256k1 key and funds it from funded.
func newFundedSigner(ctx context.Context, c *cosmostx.Client, funded *cosmostx.Signer) (*cosmostx.Signer, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	k, err := keys.PrivKeyFromBytes(secret, vip.EthSecp256k1)
	if err != nil {
		return nil, err
	}
	to := c.Address(k.PubKey())
	if err := okTx(c.Exec(ctx, funded, &banktypes.MsgSend{FromAddress: funded.Address, ToAddress: to,
		Amount: sdk.NewCoins(sdk.NewInt64Coin(c.GasPrice().Denom, 1_000_000_000))})); err != nil {
		return nil, fmt.Errorf("fund %s: %w", to, err)
	}
	return c.Signer(ctx, k)
}

func okTx(res *sdk.TxResponse, err error) error {
	if err != nil {
		return err
	}
	if res.Code != 0 {
		return fmt.Errorf("code %d: %s", res.Code, res.RawLog)
	}
	return nil
}

// viewJSON calls a vip_score view function through Initia's JSON view route and returns its
// data.
func viewJSON(ctx context.Context, rest, module, fn string, args ...string) (string, error) {
	body, _ := json.Marshal(map[string]any{"address": module, "module_name": "vip_score", "function_name": fn, "type_args": []string{}, "args": args})
	status, b, err := roundTrip(ctx, http.MethodPost, rest+"/initia/move/v1/view/json", body)
	if err != nil {
		return "", err
	}
	var v struct {
		Data string `json:"data"`
	}
	if status != http.StatusOK || json.Unmarshal(b, &v) != nil {
		return "", fmt.Errorf("view %s: HTTP %d %s", fn, status, b)
	}
	return v.Data, nil
}
