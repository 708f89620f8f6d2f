package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/l1"
)

// The registration kit on the embedded EVM rollup, built as a minievm is: the VM is
// detected from node_info (no --vm), preflight passes, and the registry entry is a minievm
// entry with the EVM chain id derived from the Cosmos chain id, valid in its checkout.
var _ = Describe("vipctl registration kit on EVM", Label("evm", "embedded", "cli", "registration"), Ordered, func() {
	var run func(ctx context.Context, args ...string) (string, int)
	var state string

	BeforeAll(func(ctx SpecContext) {
		r, err := embedded.StartEVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		l1srv, err := l1.Start(ctx, l1.WithStage(2))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(l1srv.Close)
		mnemonic := r.Funded()[0].Mnemonic
		ep := r.Endpoints()
		env := []string{"VM=", "JSON_RPC_URL=" + ep.JSONRPC, "COMET_RPC_URL=" + ep.CometRPC, "REST_URL=" + ep.REST, "MNEMONIC=" + mnemonic,
			"L1_REST_URL=" + l1srv.URL(), "VIP_MODULE_ADDRESS=" + l1srv.VIPAddress(), "PRIVATE_KEY=", "KEY_TYPE=",
			"OPERATOR_MNEMONIC=", "OPERATOR_PRIVATE_KEY=", "CONTRACT_ADDRESS=", "NETWORK="}
		state = GinkgoT().TempDir()
		run = func(ctx context.Context, args ...string) (string, int) {
			v := harness.Vipctl{Bin: vipctl, Dir: state, Env: env, Secrets: []string{strings.Join(strings.Fields(mnemonic)[:4], " ")}}
			return v.Run(ctx, append([]string{"--state-dir", state, "--no-progress"}, args...)...)
		}
	})

	It("detects the VM, preflights, deploys, and writes a valid minievm registry entry", func(ctx SpecContext) {
		out, code := run(ctx, "preflight", "--json")
		Expect(code).To(Equal(0), out)
		var rep struct {
			Findings []struct{ Check, Status, Detail string } `json:"findings"`
		}
		Expect(json.Unmarshal([]byte(out), &rep)).To(Succeed(), out)
		st := map[string]string{}
		for _, f := range rep.Findings {
			st[f.Check] = f.Status
		}
		Expect(st).To(HaveKeyWithValue("vm", "ok"), out)
		Expect(st).To(HaveKeyWithValue("initia rollup", "ok"), out)
		Expect(st).To(HaveKeyWithValue("chain id", "ok"), out)

		out, code = run(ctx, "deploy", "--json")
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring(`"vm": "evm"`))

		registry := GinkgoT().TempDir()
		logo := writeLogo(filepath.Join(state, "logo.png"))
		out, code = run(ctx, "--network", "testnet", "registry", "--name", "vipevm", "--pretty-name", "VIP EVM",
			"--category", "DeFi", "--description", "An EVM rollup rehearsing its VIP registration.",
			"--public-rpc", "https://rpc.vipevm.example", "--public-rest", "https://rest.vipevm.example",
			"--public-json-rpc", "https://jsonrpc.vipevm.example", "--public-json-rpc-ws", "wss://jsonrpc-ws.vipevm.example",
			"--op-bridge-id", "9", "--asset-symbol", "MIN", "--asset-decimals", "18", "--logo-file", logo, "--registry-dir", registry)
		Expect(code).To(Equal(0), out)
		entry := filepath.Join(registry, "testnets", "vipevm")
		chain, err := os.ReadFile(filepath.Join(entry, "chain.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(chain)).To(ContainSubstring(`"chain_id": "vip-evm-1"`))
		Expect(string(chain)).To(ContainSubstring(`"type": "minievm"`))
		Expect(string(chain)).To(ContainSubstring(fmt.Sprintf(`"evm_chain_id": %d`, probe.DeriveEVMChainID("vip-evm-1"))))
		out, code = run(ctx, "registry", "validate", entry)
		Expect(code).To(Equal(0), out)
	}, SpecTimeout(2*time.Minute))
})
