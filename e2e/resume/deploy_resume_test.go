package resume_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// A deploy killed with SIGKILL right after its tx reached the node, before it knew or
// journaled the outcome: the re-run finishes that deploy (one contract, one tx), and a third
// run reports it as already deployed and sends nothing.
var _ = Describe("a deploy killed with SIGKILL after its broadcast", Label("embedded", "crash", "deploy"), func() {
	type target struct {
		vm    vip.VM
		start func(context.Context) (localnet.Rollup, error)
		txs   uint64 // the deployer's txs of one deploy (Wasm stores its code first)
	}
	for _, t := range []target{
		{vip.EVM, func(ctx context.Context) (localnet.Rollup, error) { return embedded.StartEVM(ctx) }, 1},
		{vip.Wasm, func(ctx context.Context) (localnet.Rollup, error) { return embedded.StartWasm(ctx) }, 2},
		{vip.Move, func(ctx context.Context) (localnet.Rollup, error) { return embedded.StartMove(ctx) }, 1},
	} {
		It(string(t.vm)+": the re-run finishes the first deploy; one contract", Label(string(t.vm)), func(ctx SpecContext) {
			const stage = 4
			r, err := t.start(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
			ep, dev := r.Endpoints(), r.Funded()[0]
			env := append(os.Environ(), "VM="+string(t.vm), "KEY_TYPE=", "CONTRACT_ADDRESS=", "INIT_STAGE=")
			secret := dev.PrivateKey
			if t.vm == vip.EVM {
				env = append(env, "JSON_RPC_URL="+ep.JSONRPC, "PRIVATE_KEY="+dev.PrivateKey, "MNEMONIC=", "COMET_RPC_URL=", "REST_URL=")
			} else {
				env = append(env, "COMET_RPC_URL="+ep.CometRPC, "REST_URL="+ep.REST, "MNEMONIC="+dev.Mnemonic, "PRIVATE_KEY=")
				secret = strings.Join(strings.Fields(dev.Mnemonic)[:4], " ")
			}
			sequence := deployerSequence(ctx, t.vm, ep, dev.Address)
			before := sequence()
			stateDir := filepath.Join(GinkgoT().TempDir(), "state")
			args := []string{"deploy", "--stage", fmt.Sprint(stage), "--state-dir", stateDir, "--json"}

			out := killAfterDeployBroadcast(ctx, append(env, "VIPCTL_HALT_AFTER_DEPLOY_BROADCAST=1"), args...)
			Expect(out).NotTo(ContainSubstring(secret), "a key must never be printed")
			// The deployer's deploy journal (Wasm keeps its code store in a code-<deployer> one).
			all, _ := filepath.Glob(filepath.Join(stateDir, "journal", "*", "_deploy", "*.jsonl"))
			var journals []string
			for _, j := range all {
				if !strings.HasPrefix(filepath.Base(j), "code-") {
					journals = append(journals, j)
				}
			}
			Expect(journals).To(HaveLen(1), "the signed deploy tx is journaled before broadcast")
			signed := signedDeploy(journals[0])

			rerun := exec.CommandContext(ctx, vipctl, args...)
			rerun.Env = env
			b, err := rerun.Output()
			Expect(err).NotTo(HaveOccurred(), string(b))
			var d vip.Deployment
			Expect(json.Unmarshal(b, &d)).To(Succeed(), string(b))
			Expect(d.Status).To(Equal(vip.StatusResumed), "the re-run finishes the deploy the killed run sent")
			Expect(d.InitStage).To(BeEquivalentTo(stage))
			Expect(sequence()).To(Equal(before+t.txs), "one deploy sent in all")
			if t.vm != vip.Wasm { // Wasm's address is assigned at inclusion
				Expect(signed.Contract).To(Equal(d.Contract), "the journal named the contract before broadcast")
			}
			Expect(signed.Hash).To(Equal(d.TxHash))

			third := exec.CommandContext(ctx, vipctl, args...)
			third.Env = env
			b, err = third.Output()
			Expect(err).NotTo(HaveOccurred(), string(b))
			var again vip.Deployment
			Expect(json.Unmarshal(b, &again)).To(Succeed(), string(b))
			Expect(again.Status).To(Equal(vip.StatusAlready))
			Expect(again.Contract).To(Equal(d.Contract))
			Expect(sequence()).To(Equal(before+t.txs), "already deployed sends nothing")
		}, SpecTimeout(3*time.Minute))
	}
})

// signedDeploy is the one signed record of the deploy journal at path.
func signedDeploy(path string) journal.Record {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	var signed []journal.Record
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r journal.Record
		Expect(json.Unmarshal([]byte(line), &r)).To(Succeed(), line)
		if r.Op == journal.OpSigned {
			signed = append(signed, r)
		}
	}
	Expect(signed).To(HaveLen(1), string(b))
	return signed[0]
}

// killAfterDeployBroadcast runs vipctl until it says it halted after the deploy broadcast,
// then kills it with SIGKILL, and returns what it printed.
func killAfterDeployBroadcast(ctx context.Context, env []string, args ...string) string {
	cmd := exec.CommandContext(ctx, vipctl, args...)
	cmd.Env = env
	var buf harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	Expect(cmd.Start()).To(Succeed())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !strings.Contains(buf.String(), "halted after the broadcast of deploy tx") {
		select {
		case err := <-exited:
			Fail(fmt.Sprintf("vipctl exited (%v) before its deploy broadcast: %s", err, buf.String()))
		case <-time.After(5 * time.Millisecond):
		}
	}
	Expect(cmd.Process.Signal(syscall.SIGKILL)).To(Succeed())
	<-exited
	return buf.String()
}

// deployerSequence reads the deployer's nonce (EVM, counting its pool) or account sequence.
func deployerSequence(ctx context.Context, vm vip.VM, ep localnet.Endpoints, addr string) func() uint64 {
	if vm == vip.EVM {
		c, err := ethclient.DialContext(ctx, ep.JSONRPC)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		return func() uint64 {
			n, err := c.PendingNonceAt(ctx, common.HexToAddress(addr))
			Expect(err).NotTo(HaveOccurred())
			return n
		}
	}
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST)
	Expect(err).NotTo(HaveOccurred())
	return func() uint64 {
		_, seq, err := c.Account(ctx, addr)
		Expect(err).NotTo(HaveOccurred())
		return seq
	}
}
