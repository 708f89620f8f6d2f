package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/embedded"
	standin "github.com/vipharness/vipharness/localnet/ledger"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// The signer flags through the built binary: keys new and keys show for a Ledger (recorded
// in a keyring as minitiad keys add --ledger does), a file keyring and a keystore file; then
// deploy, a push of several chunks each confirmed on the device, and finalize; a signer that
// is not the expected sender and two signer sources are refused. No secret is ever printed.
var _ = Describe("vipctl signers", Label("cli", "signers", "embedded"), func() {
	for _, vm := range []vip.VM{vip.EVM, vip.Move, vip.Wasm} {
		It(fmt.Sprintf("%s: keys new/show for each signer kind, then deploy, update and finalize on a Ledger", vm), Label(string(vm)), func(ctx SpecContext) {
			env, err := harness.Start(ctx, harness.Target{VM: vm, Engine: embedded.Engine{}}, 1, GinkgoT().TempDir())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { _ = env.Stop(ctx) })
			mnemonic, _ := keys.NewMnemonic()
			dev, err := standin.Start(mnemonic)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(dev.Close)

			home := GinkgoT().TempDir()
			secrets := []string{env.OperatorSecret(), mnemonic, "cli keyring passphrase", "cli keystore password"}
			run := func(ctx context.Context, extraEnv []string, args ...string) (string, int) {
				v := harness.Vipctl{Bin: vipctl, Dir: home, Secrets: secrets,
					Env: append(env.VipctlEnv(), append([]string{"HOME=" + home, "VIPHARNESS_MOVEVM=" + movevm.Dir(), "PRIVATE_KEY=", "KEYRING_PASSPHRASE=", "KEYSTORE_PASSWORD="}, extraEnv...)...)}
				return v.Run(ctx, append(args, "--state-dir", filepath.Join(home, "state"), "--no-progress")...)
			}
			sp := []string{"--ledger-speculos", dev.Addr()}
			want, _ := dev.Address(keys.EVMPath(2))

			// The Ledger account, confirmed on the device and recorded in minitiad's test keyring.
			out, code := run(ctx, nil, append([]string{"keys", "new", "--ledger", "--account", "2", "--from", "hw", "--keyring-backend", "test"}, sp...)...)
			Expect(code).To(BeZero(), out)
			Expect(out).To(ContainSubstring(want.Hex()))
			Expect(dev.Confirmations()).To(ContainElement(HaveField("Kind", "address")))
			Expect(filepath.Join(home, ".minitia", "keyring-test", "hw.info")).To(BeAnExistingFile())
			out, code = run(ctx, nil, append([]string{"keys", "show", "--from", "hw", "--keyring-backend", "test", "--json"}, sp...)...)
			Expect(code).To(BeZero(), out)
			Expect(out).To(ContainSubstring(want.Hex()))
			Expect(out).To(ContainSubstring("ledger m/44'/60'/0'/0/2"))

			// A file keyring key and a keystore file.
			pass := []string{"KEYRING_PASSPHRASE=cli keyring passphrase"}
			out, code = run(ctx, pass, "keys", "new", "--from", "op", "--keyring-backend", "file", "--out", "op.mnemonic")
			Expect(code).To(BeZero(), out)
			fi, err := os.Stat(filepath.Join(home, "op.mnemonic"))
			Expect(err).NotTo(HaveOccurred())
			Expect(fi.Mode().Perm()).To(Equal(os.FileMode(0o600)))
			opAddr := strings.Fields(out)[2]
			out, code = run(ctx, pass, "keys", "show", "--from", "op", "--keyring-backend", "file")
			Expect(code).To(BeZero(), out)
			Expect(out).To(ContainSubstring(opAddr))
			out, code = run(ctx, []string{"KEYRING_PASSPHRASE=not the passphrase"}, "keys", "show", "--from", "op", "--keyring-backend", "file")
			Expect(code).To(Equal(2), out)
			Expect(out).To(ContainSubstring("wrong passphrase"))
			if vm == vip.EVM {
				pw := []string{"KEYSTORE_PASSWORD=cli keystore password"}
				out, code = run(ctx, pw, "keys", "new", "--keystore", "ks.json")
				Expect(code).To(BeZero(), out)
				ksAddr := strings.Fields(out)[3]
				out, code = run(ctx, pw, "keys", "show", "--keystore", "ks.json")
				Expect(code).To(BeZero(), out)
				Expect(out).To(ContainSubstring(ksAddr))
			}

			// Refusals: another sender expected, two signer sources.
			out, code = run(ctx, nil, append([]string{"keys", "show", "--from", "hw", "--keyring-backend", "test", "--sender", opAddr}, sp...)...)
			Expect(code).To(Equal(2), out)
			Expect(out).To(And(ContainSubstring(want.Hex()), ContainSubstring(opAddr), ContainSubstring("refusing")))
			out, code = run(ctx, nil, append([]string{"deploy", "--ledger", "--from", "hw", "--keyring-backend", "test"}, sp...)...)
			Expect(code).To(Equal(2), out)
			Expect(out).To(ContainSubstring("choose one"))

			// Deploy, push 5 chunks, finalize: each tx confirmed on the device.
			l, err := keys.Open(ctx, keys.Operator, keys.Spec{Ledger: true, LedgerSpeculos: dev.Addr(), Account: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(env.Fund(ctx, l)).To(Succeed())
			signing := append([]string{"--from", "hw", "--keyring-backend", "test", "--sender", want.Hex()}, sp...)
			out, code = run(ctx, nil, append([]string{"deploy", "--stage", "1"}, signing...)...)
			Expect(code).To(BeZero(), out)
			file := filepath.Join(home, "scores.csv")
			var buf bytes.Buffer
			Expect(scores.Write(&buf, env.Generate(250, 3), scores.CSV)).To(Succeed())
			Expect(os.WriteFile(file, buf.Bytes(), 0o600)).To(Succeed())
			before := dev.Stats().Signatures
			update := append([]string{"scores", "update", "--stage", "1", "--file", file, "--chunk-size", "50"}, signing...)
			dev.RejectNth(3) // the user refuses the third chunk on the device
			out, code = run(ctx, nil, update...)
			Expect(code).To(Equal(1), out)
			Expect(out).To(And(ContainSubstring("0x6985"), ContainSubstring("run the same command again")))
			out, code = run(ctx, nil, update...)
			Expect(code).To(BeZero(), out)
			Expect(out).To(ContainSubstring("5 chunks confirmed"))
			Expect(dev.Stats().Signatures-before).To(Equal(5), "every chunk signed once")
			out, code = run(ctx, nil, append([]string{"stage", "finalize", "--stage", "1", "--force", "--yes"}, signing...)...)
			Expect(code).To(BeZero(), out)
			out, code = run(ctx, nil, "verify", "--stage", "1", "--file", file) // reads only: no signer
			Expect(code).To(BeZero(), out)
			Expect(out).To(ContainSubstring("250/250 match"))
			Expect(dev.Stats().MaxConcurrent).To(Equal(1))
		}, SpecTimeout(4*60e9))
	}
})
