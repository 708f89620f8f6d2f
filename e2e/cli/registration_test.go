package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// Registration as a rollup team runs it, through the built binary: preflight before and
// after a deploy, the registry entry written into a checkout and validated there, and the
// whitelist kit for mainnet and testnet.
var _ = Describe("vipctl registration kit", Label("move", "embedded", "cli", "registration"), Ordered, func() {
	const l1Stage = 3
	var (
		env             []string
		mnemonic, state string
		registry, rest  string
		run             func(ctx context.Context, args ...string) (string, int)
	)

	BeforeAll(func(ctx SpecContext) {
		r, err := embedded.StartMove(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		l1srv, err := l1.Start(ctx, l1.WithStage(l1Stage))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(l1srv.Close)
		mnemonic = r.Funded()[0].Mnemonic
		ep := r.Endpoints()
		rest = ep.REST
		env = []string{"VM=", "COMET_RPC_URL=" + ep.CometRPC, "REST_URL=" + ep.REST, "MNEMONIC=" + mnemonic,
			"L1_REST_URL=" + l1srv.URL(), "VIP_MODULE_ADDRESS=" + l1srv.VIPAddress(), "JSON_RPC_URL=", "PRIVATE_KEY=", "KEY_TYPE=",
			"OPERATOR_MNEMONIC=", "OPERATOR_PRIVATE_KEY=", "CONTRACT_ADDRESS=", "NETWORK=",
			// The commands run in a temporary folder: name the Move libraries' folder.
			"VIPHARNESS_MOVEVM=" + movevm.Dir()}
		state = GinkgoT().TempDir()
		registry = GinkgoT().TempDir()
		run = func(ctx context.Context, args ...string) (string, int) {
			v := harness.Vipctl{Bin: vipctl, Dir: state, Env: env, Secrets: []string{strings.Join(strings.Fields(mnemonic)[:4], " ")}}
			return v.Run(ctx, append([]string{"--state-dir", state, "--no-progress"}, args...)...)
		}
	})

	type report struct {
		Findings []struct{ Check, Status, Detail, Fix string } `json:"findings"`
		OK       bool                                          `json:"ok"`
	}
	status := func(out string) map[string]string {
		var rep report
		ExpectWithOffset(1, json.Unmarshal([]byte(out), &rep)).To(Succeed(), out)
		m := map[string]string{}
		for _, f := range rep.Findings {
			m[f.Check] = f.Status
		}
		return m
	}

	It("preflights the rollup, the L1 and the key, then the deployed contract", func(ctx SpecContext) {
		out, code := run(ctx, "preflight", "--json")
		Expect(code).To(Equal(0), out)
		Expect(status(out)).To(Equal(map[string]string{
			"rollup rpc": "ok", "tx index": "ok", "initia rollup": "ok", "rollup rest": "ok", "vm": "ok", "version": "warn", "chain id": "ok",
			"l1 stage": "ok", "balance deployer (and operator)": "ok", "contract": "skip",
		}))
		out, code = run(ctx, "--vm", "move", "deploy", "--json")
		Expect(code).To(Equal(0), out)
		var d struct{ Contract string }
		Expect(json.Unmarshal([]byte(out), &d)).To(Succeed(), out)
		out, code = run(ctx, "preflight", "--json", "--contract", d.Contract)
		Expect(code).To(Equal(0), out)
		Expect(status(out)).To(HaveKeyWithValue("contract interface", "ok"))
		Expect(status(out)).To(HaveKeyWithValue("contract stage", "ok"))
		// The wrong VM for this rollup fails with the flag to use.
		out, code = run(ctx, "--vm", "wasm", "preflight")
		Expect(code).To(Equal(1), out)
		Expect(out).To(ContainSubstring("pass --vm move"))
	}, SpecTimeout(2*time.Minute))

	It("writes the registry entry into a checkout and validates it there", func(ctx SpecContext) {
		logo := writeLogo(filepath.Join(state, "logo.png"))
		entryArgs := []string{"--network", "testnet", "registry", "--name", "vipmove", "--pretty-name", "VIP Move",
			"--category", "Gaming", "--description", "A Move rollup rehearsing its VIP registration.",
			"--public-rpc", "https://rpc.vipmove.example", "--public-rest", "https://rest.vipmove.example",
			"--op-bridge-id", "7", "--asset-symbol", "MIN", "--asset-decimals", "6", "--registry-dir", registry}

		// A file named .png that is no PNG, and EVM JSON-RPC on a minimove, are refused.
		fake := filepath.Join(state, "fake.png")
		Expect(os.WriteFile(fake, []byte("\x89PNG\r\n\x1a\n not an image"), 0o644)).To(Succeed())
		out, code := run(ctx, append(entryArgs, "--logo-file", fake)...)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("--logo-file " + fake + ": not a PNG image"))
		out, code = run(ctx, append(entryArgs, "--logo-file", logo, "--public-json-rpc", "https://jsonrpc.vipmove.example")...)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("--public-json-rpc: the rollup is a minimove, not minievm"))
		Expect(filepath.Join(registry, "testnets", "vipmove")).NotTo(BeADirectory())

		out, code = run(ctx, append(entryArgs, "--logo-file", logo)...)
		Expect(code).To(Equal(0), out)
		Expect(filepath.Join(registry, "images", "vipmove.png")).To(BeAnExistingFile())
		entry := filepath.Join(registry, "testnets", "vipmove")
		chain, err := os.ReadFile(filepath.Join(entry, "chain.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(chain)).To(ContainSubstring(`"chain_id": "vip-move-1"`))
		Expect(string(chain)).To(ContainSubstring(`"type": "minimove"`))
		Expect(filepath.Join(registry, "profiles", "vipmove.json")).To(BeAnExistingFile())

		out, code = run(ctx, "registry", "validate", entry)
		Expect(code).To(Equal(0), out)
		// The logo the entry names must be in the checkout.
		Expect(os.Remove(filepath.Join(registry, "images", "vipmove.png"))).To(Succeed())
		out, code = run(ctx, "registry", "validate", entry)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("/logo_URIs/png: images/vipmove.png is not in the registry checkout"))

		Expect(os.WriteFile(filepath.Join(entry, "chain.json"), bytes.Replace(chain, []byte(`"https://rpc.vipmove.example"`), []byte(`"http://rpc.vipmove.example"`), 1), 0o644)).To(Succeed())
		out, code = run(ctx, "registry", "validate", entry)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("testnets/vipmove/chain.json /apis/rpc/0/address"))

		out, code = run(ctx, "--network", "testnet", "registry", "--name", "Bad-Name", "--rest", rest)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("--name"))
	}, SpecTimeout(time.Minute))

	It("prepares the whitelist kit: the mainnet forum post and proposal, the testnet note", func(ctx SpecContext) {
		policy := filepath.Join(state, "policy.md")
		Expect(os.WriteFile(policy, []byte("score = 10 x games + trades"), 0o644)).To(Succeed())
		args := []string{"--vm", "move", "whitelist", "--name", "VIP Move", "--chain-id", "vip-move-1",
			"--operator", "init1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc535vdd7", "--bridge-id", "7", "--bridge-address", "0xb7",
			"--contract", "0xcafe", "--max-rate", "0.2", "--max-change-rate", "0.01", "--rate", "0.05",
			"--proposer", "VIP Move team", "--tldr", "Whitelist VIP Move", "--scoring-policy", policy}
		// The environment names the local L1's VIP module, as a sourced localnet.env does:
		// --network mainnet disagrees with it, and the kit is refused rather than written
		// for the wrong module.
		out, code := run(ctx, append([]string{"--network", "mainnet"}, append(args, "--deposit", "100000000uinit", "--out", "stale-kit")...)...)
		Expect(code).To(Equal(2), out)
		Expect(out).To(And(ContainSubstring("VIP_MODULE_ADDRESS"), ContainSubstring("0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789")))
		Expect(filepath.Join(state, "stale-kit")).NotTo(BeAnExistingFile())

		run := func(ctx context.Context, args ...string) (string, int) {
			v := harness.Vipctl{Bin: vipctl, Dir: state, Env: append(append([]string{}, env...), "VIP_MODULE_ADDRESS=", "L1_REST_URL="),
				Secrets: []string{strings.Join(strings.Fields(mnemonic)[:4], " ")}}
			return v.Run(ctx, append([]string{"--state-dir", state, "--no-progress"}, args...)...)
		}
		out, code = run(ctx, append([]string{"--network", "mainnet"}, args...)...)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("--deposit"))

		out, code = run(ctx, append([]string{"--network", "mainnet"}, append(args, "--deposit", "100000000uinit", "--out", "mainnet-kit")...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring("for mainnet, VIP module 0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789"))
		proposal, err := os.ReadFile(filepath.Join(state, "mainnet-kit", "proposal.json"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(proposal)).To(ContainSubstring(`"@type": "/initia.move.v1.MsgGovExecute"`))
		Expect(string(proposal)).To(ContainSubstring(`"function_name": "register"`))
		post, err := os.ReadFile(filepath.Join(state, "mainnet-kit", "forum-post.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(post)).To(ContainSubstring("score = 10 x games + trades"))

		out, code = run(ctx, append([]string{"--network", "testnet"}, append(args, "--out", "testnet-kit")...)...)
		Expect(code).To(Equal(0), out)
		Expect(filepath.Join(state, "testnet-kit", "testnet-note.md")).To(BeAnExistingFile())
		Expect(filepath.Join(state, "testnet-kit", "proposal.json")).NotTo(BeAnExistingFile())

		// Without --chain-id the rollup names itself (its node_info, through REST_URL).
		var unnamed []string
		for i := 0; i < len(args); i++ {
			if args[i] == "--chain-id" {
				i++
				continue
			}
			unnamed = append(unnamed, args[i])
		}
		out, code = run(ctx, append([]string{"--network", "testnet"}, append(unnamed, "--out", "unnamed-kit")...)...)
		Expect(code).To(Equal(0), out)
		note, err := os.ReadFile(filepath.Join(state, "unnamed-kit", "testnet-note.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(note)).To(ContainSubstring("`vip-move-1`"))

		out, code = run(ctx, append([]string{"--network", "mainnet"}, append(args, "--deposit", "1uinit", "--rate", "0.3")...)...)
		Expect(code).To(Equal(2), out)
		Expect(out).To(ContainSubstring("--rate: 0.3 is above the max rate 0.2"))
	}, SpecTimeout(time.Minute))
})

// writeLogo writes a small real PNG (the registry serves logos as image/png, and vipctl
// decodes them) and returns its path.
func writeLogo(p string) string {
	img := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = 0xc0
	}
	var b bytes.Buffer
	Expect(png.Encode(&b, img)).To(Succeed())
	Expect(os.WriteFile(p, b.Bytes(), 0o644)).To(Succeed())
	return p
}
