package resume_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// The deployer runs as its own process against a chain that outlives it; it is killed with
// SIGKILL at several points of one push, then run again until it completes.
var _ = Describe("a push killed with SIGKILL", Label("evm", "embedded", "crash"), func() {
	It("resumes from its journal and lands every chunk exactly once", func(ctx SpecContext) {
		const stage, n, chunk = 3, 5000, 100
		r, err := embedded.StartEVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		rpcURL := r.Endpoints().JSONRPC
		client, err := ethclient.DialContext(ctx, rpcURL)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(client.Close)
		devKey := r.Funded()[0].PrivateKey
		key, err := crypto.HexToECDSA(devKey)
		Expect(err).NotTo(HaveOccurred())

		s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: rpcURL, Operator: keys.FromECDSA(key, "operator key"), Push: deployer.PushConfig{JournalDir: GinkgoT().TempDir()}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		d, err := s.Deploy(ctx, stage)
		Expect(err).NotTo(HaveOccurred())
		deployBlock, err := client.BlockNumber(ctx)
		Expect(err).NotTo(HaveOccurred())

		entries := scores.Generate(n, 99)
		dir := GinkgoT().TempDir()
		file := filepath.Join(dir, "scores.csv")
		var csv bytes.Buffer
		csv.WriteString("address,score\n")
		for _, e := range entries {
			fmt.Fprintf(&csv, "%s,%d\n", e.Addr, e.Amount)
		}
		Expect(os.WriteFile(file, csv.Bytes(), 0o644)).To(Succeed())
		stateDir := filepath.Join(dir, "state")

		env := append(os.Environ(), "PRIVATE_KEY="+devKey)
		run := func(killAfterRecords int) (bool, string) {
			return runVipctl(ctx, env, stateDir, killAfterRecords, "scores", "update", "--file", file, "--stage", fmt.Sprint(stage),
				"--contract", d.Contract, "--rpc", rpcURL, "--state-dir", stateDir, "--chunk-size", fmt.Sprint(chunk),
				"--window", "4", "--no-progress")
		}

		// 101 records make a whole push: begin, then signed and confirmed per chunk.
		for _, at := range []int{2, 17, 48, 80} {
			killed, out := run(at)
			if !killed {
				Fail("the push finished before the kill at record " + fmt.Sprint(at) + ": " + out)
			}
			Expect(out).NotTo(ContainSubstring(devKey), "the key must never be printed")
		}
		_, out := run(0)
		Expect(out).To(ContainSubstring("chunks confirmed"))
		Expect(out).NotTo(ContainSubstring(devKey))

		rep, err := deployer.Verify(ctx, s, stage, entries)
		Expect(err).NotTo(HaveOccurred())
		Expect(rep.Mismatches).To(BeEmpty())
		Expect(rep.Matched).To(Equal(n))
		Expect(rep.OnChain).To(Equal(n))
		Expect(rep.TotalsAgree).To(BeTrue())

		// Every address went out in exactly one mined updateScores tx.
		sent := map[common.Address]int{}
		txs := 0
		head, err := client.BlockNumber(ctx)
		Expect(err).NotTo(HaveOccurred())
		binding := vipscore.NewVipScore()
		parsed := binding.GetABI()
		method := parsed.Methods["updateScores"]
		for h := deployBlock + 1; h <= head; h++ {
			b, err := client.BlockByNumber(ctx, new(big.Int).SetUint64(h))
			Expect(err).NotTo(HaveOccurred())
			for _, tx := range b.Transactions() {
				if tx.To() == nil || *tx.To() != common.HexToAddress(d.Contract) || !bytes.HasPrefix(tx.Data(), method.ID) {
					continue
				}
				args, err := method.Inputs.Unpack(tx.Data()[4:])
				Expect(err).NotTo(HaveOccurred())
				txs++
				for _, a := range args[1].([]common.Address) {
					sent[a]++
				}
			}
		}
		Expect(txs).To(Equal(n / chunk))
		Expect(sent).To(HaveLen(n))
		for a, c := range sent {
			Expect(c).To(Equal(1), "address %s sent %d times", a.Hex(), c)
		}
	}, SpecTimeout(5*time.Minute))
})

// runVipctl runs vipctl; with killAfterRecords > 0 it kills it with SIGKILL as soon as the
// journals below stateDir hold that many records. It reports whether it killed the process,
// and what the process printed.
func runVipctl(ctx context.Context, env []string, stateDir string, killAfterRecords int, args ...string) (killed bool, out string) {
	cmd := exec.CommandContext(ctx, vipctl, args...)
	cmd.Env = env
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	Expect(cmd.Start()).To(Succeed())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		select {
		case err := <-exited:
			Expect(err).NotTo(HaveOccurred(), buf.String())
			return false, buf.String()
		case <-time.After(time.Millisecond):
		}
		if killAfterRecords > 0 && journalRecords(stateDir) >= killAfterRecords {
			Expect(cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
			<-exited
			return true, buf.String()
		}
	}
}

// journalRecords counts the records of the push journals below stateDir.
func journalRecords(stateDir string) int {
	files, _ := filepath.Glob(filepath.Join(stateDir, "journal", "*", "*", "*.jsonl"))
	total := 0
	for _, f := range files {
		if filepath.Base(filepath.Dir(f)) == "_deploy" { // the deploy's journal, not the push's
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
		for sc.Scan() {
			if strings.HasSuffix(sc.Text(), "}") {
				total++
			}
		}
		fh.Close()
	}
	return total
}
