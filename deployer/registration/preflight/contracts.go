package preflight

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/vipharness/vipharness/bindings/nodehttp"
	"github.com/vipharness/vipharness/deployer/vip"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/registration/probe"
)

// EVMCreationCode is VipScore's creation code with its constructor's initial stage: what a
// deploy sends, for the node to estimate.
func EVMCreationCode(initStage uint64) ([]byte, error) {
	abi, err := vipscore.VipScoreMetaData.ParseABI()
	if err != nil {
		return nil, err
	}
	args, err := abi.Pack("", initStage)
	if err != nil {
		return nil, err
	}
	return append(common.FromHex(vipscore.VipScoreMetaData.Bin), args...), nil
}

// OpenStageFunc reads a contract's open stage (a Scorer's OpenStage).
type OpenStageFunc func(ctx context.Context) (uint64, error)

// EVMContract reads a VipScore contract over JSON-RPC.
func EVMContract(c *probe.Client, address string, open OpenStageFunc) Contract {
	return &evmContract{c: c, addr: address, open: open}
}

type evmContract struct {
	c    *probe.Client
	addr string
	open OpenStageFunc
	code []byte
}

func (e *evmContract) Exists(ctx context.Context) (bool, error) {
	code, err := e.c.EVMCode(ctx, e.addr)
	e.code = code
	return len(code) > 0, err
}

// Interface looks for each official function's selector in the runtime code, where the
// dispatcher compares the call's selector with it (PUSH4 <selector>).
func (e *evmContract) Interface(ctx context.Context) ([]string, error) {
	abi, err := vipscore.VipScoreMetaData.ParseABI()
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, name := range officialEVM {
		m, ok := abi.Methods[name]
		if !ok {
			return nil, fmt.Errorf("the binding has no %s", name)
		}
		if !bytes.Contains(e.code, append([]byte{0x63}, m.ID...)) {
			missing = append(missing, m.Sig)
		}
	}
	return missing, nil
}

func (e *evmContract) OpenStage(ctx context.Context) (uint64, error) { return e.open(ctx) }

// The official VipScore's functions (initia-labs/vip-score-evm).
var officialEVM = []string{"updateScores", "updateScore", "increaseScore", "decreaseScore", "finalizeStage",
	"addAllowList", "removeAllowList", "initStage", "stages", "scores", "allowList", "getScores"}

// The official vip_score module's entry functions and views (initia-labs/vip-score-move).
var officialMove = []string{"add_deployer_script", "remove_deployer_script", "set_init_stage", "update_score_script",
	"finalize_script", "get_score", "get_total_score", "get_scores"}

// MoveContract reads a vip_score module through the Move REST.
func MoveContract(c *probe.Client, address string, open OpenStageFunc) Contract {
	return &moveContract{c: c, addr: address, open: open}
}

type moveContract struct {
	c    *probe.Client
	addr string
	open OpenStageFunc
	abi  string
}

func (m *moveContract) Exists(ctx context.Context) (bool, error) {
	var reply struct {
		Module struct {
			ABI string `json:"abi"`
		} `json:"module"`
	}
	err := m.c.GetJSON(ctx, "/initia/move/v1/accounts/"+url.PathEscape(m.addr)+"/modules/vip_score", &reply)
	var he *nodehttp.Error
	if errors.As(err, &he) && (he.Status == 404 || (he.Status == 500 && strings.Contains(he.Message, "not found"))) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	m.abi = reply.Module.ABI
	return true, nil
}

func (m *moveContract) Interface(ctx context.Context) ([]string, error) {
	var abi struct {
		ExposedFunctions []struct {
			Name string `json:"name"`
		} `json:"exposed_functions"`
	}
	if err := json.Unmarshal([]byte(m.abi), &abi); err != nil {
		return nil, fmt.Errorf("the module's ABI: %w", err)
	}
	have := map[string]bool{}
	for _, f := range abi.ExposedFunctions {
		have[f.Name] = true
	}
	var missing []string
	for _, n := range officialMove {
		if !have[n] {
			missing = append(missing, "vip_score::"+n)
		}
	}
	return missing, nil
}

func (m *moveContract) OpenStage(ctx context.Context) (uint64, error) { return m.open(ctx) }

// WasmContract reads a CosmWasm scoring contract through the REST.
func WasmContract(c *probe.Client, address string, open OpenStageFunc) Contract {
	return &wasmContract{c: c, addr: address, open: open}
}

type wasmContract struct {
	c    *probe.Client
	addr string
	open OpenStageFunc
}

func (w *wasmContract) Exists(ctx context.Context) (bool, error) {
	var reply json.RawMessage
	err := w.c.GetJSON(ctx, "/cosmwasm/wasm/v1/contract/"+url.PathEscape(w.addr), &reply)
	var he *nodehttp.Error
	if errors.As(err, &he) && (he.Status == 404 || strings.Contains(he.Message, "not found")) {
		return false, nil
	}
	return err == nil, err
}

// Interface asks each official query: a contract without it answers that it does not know
// the message (serde's "unknown variant", our contract's "unknown message"); any other
// answer, even an error about the stage, means the query exists.
func (w *wasmContract) Interface(ctx context.Context) ([]string, error) {
	var missing []string
	for name, msg := range map[string]string{
		"get_stage_info": `{"get_stage_info":{"stage":1}}`,
		"get_scores":     `{"get_scores":{"stage":1,"limit":1}}`,
		"get_score":      fmt.Sprintf(`{"get_score":{"addr":%q,"stage":1}}`, w.addr),
	} {
		q := base64.StdEncoding.EncodeToString([]byte(msg))
		var reply json.RawMessage
		err := w.c.GetJSON(ctx, "/cosmwasm/wasm/v1/contract/"+url.PathEscape(w.addr)+"/smart/"+url.PathEscape(q), &reply)
		if err != nil && (strings.Contains(err.Error(), "unknown variant") || strings.Contains(err.Error(), "unknown message")) {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	return missing, nil
}

func (w *wasmContract) OpenStage(ctx context.Context) (uint64, error) { return w.open(ctx) }

// readers are how each VM's contract is read through its rollup's faces.
var readers = map[vip.VM]func(*probe.Client, string, OpenStageFunc) Contract{
	vip.EVM:  EVMContract,
	vip.Move: MoveContract,
	vip.Wasm: WasmContract,
}

// ContractOf reads the scoring contract at address on a rollup of vm; nil for an unknown VM.
func ContractOf(vm vip.VM, c *probe.Client, address string, open OpenStageFunc) Contract {
	if read, ok := readers[vm]; ok {
		return read(c, address, open)
	}
	return nil
}
