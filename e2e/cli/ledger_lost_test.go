package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

// A Ledger unplugged in the middle of a push: the command ends with the same resume hint as
// a refusal, and the re-run on the device plugged back in lands each chunk once.
var _ = Describe("vipctl with a Ledger that disconnects mid-push", Label("cli", "signers", "embedded", "evm"), func() {
	It("names the way to resume and lands every chunk once on the re-run", func(ctx SpecContext) {
		env, err := harness.Start(ctx, harness.Target{VM: vip.EVM, Engine: embedded.Engine{}}, 1, GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { _ = env.Stop(ctx) })
		mnemonic, _ := keys.NewMnemonic()
		dev, err := standin.Start(mnemonic, standin.WithConfirmDelay(150*time.Millisecond))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(dev.Close)
		l, err := keys.Open(ctx, keys.Operator, keys.Spec{Ledger: true, LedgerSpeculos: dev.Addr()})
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Fund(ctx, l)).To(Succeed())

		c, err := ethclient.DialContext(ctx, env.Rollup.Endpoints().JSONRPC)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		nonce := func(ctx context.Context) uint64 {
			n, err := c.NonceAt(ctx, l.Address(), nil)
			Expect(err).NotTo(HaveOccurred())
			return n
		}

		home := GinkgoT().TempDir()
		run := func(ctx context.Context, speculos string, args ...string) (string, int) {
			v := harness.Vipctl{Bin: vipctl, Dir: home, Secrets: []string{env.OperatorSecret(), mnemonic},
				Env: append(env.VipctlEnv(), "HOME="+home, "PRIVATE_KEY=", "OPERATOR_PRIVATE_KEY=", "MNEMONIC=")}
			return v.Run(ctx, append(args, "--ledger", "--ledger-speculos", speculos, "--state-dir", filepath.Join(home, "state"), "--no-progress")...)
		}
		out, code := run(ctx, dev.Addr(), "deploy", "--stage", "1")
		Expect(code).To(BeZero(), out)
		file := filepath.Join(home, "scores.csv")
		var buf bytes.Buffer
		Expect(scores.Write(&buf, env.Generate(250, 5), scores.CSV)).To(Succeed())
		Expect(os.WriteFile(file, buf.Bytes(), 0o600)).To(Succeed())
		update := []string{"scores", "update", "--stage", "1", "--file", file, "--chunk-size", "50"}

		before := nonce(ctx)
		signed := dev.Stats().Signatures
		go func() { // unplug the device while it shows the third chunk
			defer GinkgoRecover()
			for dev.Stats().Signatures < signed+2 {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			dev.Close()
		}()
		out, code = run(ctx, dev.Addr(), update...)
		Expect(code).To(Equal(1), out)
		Expect(out).To(And(ContainSubstring("connection to the device failed"), ContainSubstring("run the same command again")))
		pending, err := c.PendingNonceAt(ctx, l.Address())
		Expect(err).NotTo(HaveOccurred())
		Expect(pending-before).To(BeNumerically("<", 5), "the push went on without the device")

		again, err := standin.Start(mnemonic)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(again.Close)
		out, code = run(ctx, again.Addr(), update...)
		Expect(code).To(BeZero(), out)
		Expect(out).To(ContainSubstring("5 chunks confirmed"))
		Expect(nonce(ctx)-before).To(BeEquivalentTo(5), "every chunk landed once")
		Expect(again.Stats().Signatures).To(BeNumerically("<", 5), "the re-run signed again the chunks signed before the unplug")
	}, SpecTimeout(3*time.Minute))
})
