package signers_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	"github.com/vipharness/vipharness/e2e/harness"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

const passphrase = "e2e keyring passphrase"

func fixed(s string) keys.PasswordFunc { return func(string) (string, error) { return s, nil } }

// Every VM, every engine: the operator's key on a Ledger (the device stand-in, over the
// Speculos protocol) and in a minitiad-style file keyring deploys, pushes scores in several
// chunks and finalizes. On the Ledger the user refuses one chunk in the middle of the push:
// the push stops there, and a re-run completes it with every address in exactly one
// successful update tx.
var _ = Describe("signers", Label("signers"), func() {
	const n, chunk = 300, 50
	for _, target := range harness.Targets() {
		for _, kind := range []string{"ledger", "file keyring"} {
			It(fmt.Sprintf("%s with a %s: deploy, update in chunks, finalize", target, kind), Label(string(target.VM), target.Engine.Name()), func(ctx SpecContext) {
				env, err := harness.Start(ctx, target, 1, GinkgoT().TempDir())
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { _ = env.Stop(ctx) })
				// Runs before the stop above (cleanups run last first), while the node's log is there.
				DeferCleanup(func() {
					if CurrentSpecReport().Failed() {
						AddReportEntry("node log", env.FailureLogs())
					}
				})

				var (
					signer keys.Signer
					dev    *standin.Server
				)
				if kind == "ledger" {
					if !env.LedgerCapable() {
						Skip("wasmd knows neither eth_secp256k1 nor SIGN_MODE_EIP_191 (Initia's miniwasm does)")
					}
					mnemonic, err := keys.NewMnemonic()
					Expect(err).NotTo(HaveOccurred())
					dev, err = standin.Start(mnemonic)
					Expect(err).NotTo(HaveOccurred())
					DeferCleanup(dev.Close)
					signer, err = keys.Open(ctx, keys.Operator, keys.Spec{Ledger: true, LedgerSpeculos: dev.Addr(), Account: 3})
					Expect(err).NotTo(HaveOccurred())
					want, _ := dev.Address(keys.EVMPath(3))
					Expect(signer.Address()).To(Equal(want))
				} else {
					dir := GinkgoT().TempDir()
					kr, err := keys.OpenKeyring("file", dir, fixed(passphrase))
					Expect(err).NotTo(HaveOccurred())
					made, _, err := kr.New("operator", env.KeyType(), 0)
					Expect(err).NotTo(HaveOccurred())
					signer, err = keys.Open(ctx, keys.Operator, keys.Spec{From: "operator", KeyringBackend: "file", KeyringDir: dir,
						KeyringPassword: fixed(passphrase), Expect: made.Address().Hex()})
					Expect(err).NotTo(HaveOccurred())
					Expect(signer.KeyType()).To(Equal(env.KeyType()))
				}
				Expect(env.Fund(ctx, signer)).To(Succeed())

				s, err := env.ScorerSigning(ctx, signer, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := s.Deploy(ctx, 1)
				Expect(err).NotTo(HaveOccurred())
				Expect(harness.AddrKey(d.Deployer)).To(Equal(harness.AddrKey(signer.Address().Hex())))

				entries := env.Generate(n, 16)
				from, err := env.Height(ctx)
				Expect(err).NotTo(HaveOccurred())
				open := func() *deployer.Scorer {
					sc, err := env.ScorerSigning(ctx, signer, d.Contract, harness.ChunkSize(chunk), harness.Window(4))
					Expect(err).NotTo(HaveOccurred())
					return sc
				}
				if dev != nil {
					dev.RejectNth(3) // the third chunk
					_, err := open().UpdateScores(ctx, 1, entries)
					Expect(ledger.Rejected(err)).To(BeTrue(), "push error %v, want the device's refusal", err)
				}
				res, err := open().UpdateScores(ctx, 1, entries)
				Expect(err).NotTo(HaveOccurred())
				Expect(res.Chunks).To(Equal(n / chunk))
				if dev != nil {
					// The chunks the first run sent are found on chain (Resumed) or, when still
					// pending as the re-run starts (geth in a container mines more slowly), sent
					// again byte for byte (Rebroadcast): never signed a second time.
					Expect(res.Resumed+res.Rebroadcast).To(BeNumerically(">=", 1), "the re-run resumes what the first run sent")
				}
				_, err = open().FinalizeStage(ctx, 1)
				Expect(err).NotTo(HaveOccurred())

				rep, err := deployer.Verify(ctx, open(), 1, entries)
				Expect(err).NotTo(HaveOccurred())
				Expect(rep.Mismatches).To(BeEmpty())
				Expect(rep.Matched).To(Equal(n))
				Expect(rep.Finalized).To(BeTrue())

				sent, txs, err := env.Updates(ctx, d.Contract, from)
				Expect(err).NotTo(HaveOccurred())
				Expect(txs).To(Equal(n / chunk))
				Expect(sent).To(HaveLen(n))
				for a, c := range sent {
					Expect(c).To(Equal(1), "address %s sent in %d successful txs", a, c)
				}

				if dev != nil {
					st := dev.Stats()
					Expect(st.MaxConcurrent).To(Equal(1), "one APDU exchange at a time, window or not")
					Expect(st.Interleaved).To(BeZero())
					refused, signedChunks := 0, 0
					for _, c := range dev.Confirmations() {
						if !c.Approved {
							refused++
						}
					}
					signedChunks = st.Signatures
					Expect(refused).To(Equal(1))
					// deploy tx(s), every chunk once, finalize: at least n/chunk + 2 signatures.
					Expect(signedChunks).To(BeNumerically(">=", n/chunk+2))
				}
			}, SpecTimeout(5*time.Minute))
		}
	}
})
