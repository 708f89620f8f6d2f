package preflight

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/registration/probe"
)

func noOpen(context.Context) (uint64, error) { return 1, nil }

func TestEVMContractFindsTheOfficialSelectors(t *testing.T) {
	abi, err := vipscore.VipScoreMetaData.ParseABI()
	if err != nil {
		t.Fatal(err)
	}
	var code []byte
	for _, n := range officialEVM {
		if n == "getScores" {
			continue // this contract lacks it
		}
		code = append(code, 0x63)
		code = append(code, abi.Methods[n].ID...)
		code = append(code, 0x14)
	}
	f := minievm()
	f.code = hex.EncodeToString(code)
	srv := f.serve(t)
	c := EVMContract(&probe.Client{JSONRPC: srv.URL + "/evm"}, "0xc", noOpen)
	ctx := context.Background()
	if ok, err := c.Exists(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	missing, err := c.Interface(ctx)
	if err != nil || !slices.Equal(missing, []string{"getScores(uint64,uint64,uint64)"}) {
		t.Fatalf("%v %v", missing, err)
	}
	f.code = ""
	if ok, _ := EVMContract(&probe.Client{JSONRPC: srv.URL + "/evm"}, "0xc", noOpen).Exists(ctx); ok {
		t.Fatal("an account without code exists")
	}
}

func TestMoveContractReadsTheModuleABI(t *testing.T) {
	f := minimove()
	var fns []map[string]string
	for _, n := range officialMove[1:] {
		fns = append(fns, map[string]string{"name": n})
	}
	abi, _ := json.Marshal(map[string]any{"exposed_functions": fns})
	f.moduleABI = string(abi)
	srv := f.serve(t)
	ctx := context.Background()
	c := MoveContract(&probe.Client{REST: srv.URL}, "0xc", noOpen)
	if ok, err := c.Exists(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if missing, err := c.Interface(ctx); err != nil || !slices.Equal(missing, []string{"vip_score::add_deployer_script"}) {
		t.Fatalf("%v %v", missing, err)
	}
	f.moduleABI = ""
	if ok, err := MoveContract(&probe.Client{REST: srv.URL}, "0xc", noOpen).Exists(ctx); ok || err != nil {
		t.Fatalf("no module: %v %v", ok, err)
	}
}

func TestWasmContractAsksEachQuery(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/init1c"):
			w.Write([]byte(`{"address":"init1c","contract_info":{}}`))
		case strings.Contains(r.URL.Path, "/smart/"):
			raw, _ := base64.StdEncoding.DecodeString(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
			q := string(raw)
			if strings.Contains(q, "get_scores") {
				http.Error(w, `{"code":2,"message":"Error parsing into type QueryMsg: unknown variant get_scores"}`, 500)
				return
			}
			if strings.Contains(q, "get_stage_info") {
				http.Error(w, `{"code":2,"message":"query message: unknown message \"get_stage_info\""}`, 500)
				return
			}
			http.Error(w, `{"code":2,"message":"stage 1 not found"}`, 500)
		default:
			http.Error(w, `{"code":5,"message":"not found"}`, 404)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c := WasmContract(&probe.Client{REST: srv.URL}, "init1c", noOpen)
	if ok, err := c.Exists(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if missing, err := c.Interface(ctx); err != nil || !slices.Equal(missing, []string{"get_scores", "get_stage_info"}) {
		t.Fatalf("%v %v", missing, err)
	}
	if ok, err := WasmContract(&probe.Client{REST: srv.URL}, "init1none", noOpen).Exists(ctx); ok || err != nil {
		t.Fatalf("no contract: %v %v", ok, err)
	}
}
