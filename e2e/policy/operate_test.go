package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/e2e/harness"
)

// operated is what operateByPolicy needs of a rollup beyond vipctl: how many txs the
// operator has sent (EVM: the chain's height, no other sender there; Cosmos: the operator's
// sequence, as blocks come on a clock) and how its score files name accounts.
type operated struct {
	sent       func() uint64
	readScores func(path string) map[common.Address]uint64
}

// operateByPolicy runs one pass of `vipctl operate --once --policy` that must compute, push
// and finalize every stage in closed and leave open for later; checks each closed stage's
// score file and manifest against what `scores compute` writes for it, and `audit --policy`
// against the contract; runs a second pass that must send nothing; and returns the scores of
// each closed stage as the operator wrote them.
func operateByPolicy(ctx context.Context, env *harness.Env, on operated, stateDir, contract, outRoot string, policyArgs []string, closed []int, open int) map[int]map[common.Address]uint64 {
	GinkgoHelper()
	By("one pass of the operator closes the ended stages")
	out, code := env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", contract, "operate", "--once"}, policyArgs...)...)
	Expect(code).To(Equal(0), out)
	for _, st := range closed {
		Expect(out).To(MatchRegexp(`stage computed by the policy" stage=%d`, st))
		Expect(out).To(MatchRegexp(`stage finalized" stage=%d`, st))
	}
	Expect(out).To(ContainSubstring(fmt.Sprintf("stage %d has not ended on the rollup yet", open)), "the open stage is left for later")

	By("each stage on chain is the policy's, and the operator's manifest is the one scores compute writes")
	contractDir := filepath.Join(stateDir, "policy", strings.ToLower(contract))
	got := map[int]map[common.Address]uint64{}
	for _, st := range closed {
		dir := filepath.Join(outRoot, fmt.Sprintf("compute-%d", st))
		out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"scores", "compute", "--stage", strconv.Itoa(st), "--out", dir}, policyArgs...)...)
		Expect(code).To(Equal(0), out)
		opDir := filepath.Join(contractDir, fmt.Sprintf("stage-%d", st))
		a, err := os.ReadFile(filepath.Join(dir, policy.ScoreFileName))
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(opDir, policy.ScoreFileName))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal(string(a)), "stage %d's score file", st)
		var mc, mo policy.Manifest
		for path, m := range map[string]*policy.Manifest{dir: &mc, opDir: &mo} {
			raw, err := os.ReadFile(filepath.Join(path, policy.ManifestName))
			Expect(err).NotTo(HaveOccurred())
			Expect(json.Unmarshal(raw, m)).To(Succeed())
		}
		Expect(mo.Source.Height).To(BeNumerically("<", mc.Source.Height), "the pushes and finalizes came after the operator's read")
		mo.Source = mc.Source
		Expect(mo).To(Equal(mc), "stage %d's manifests differ only in the node's height when read", st)
		got[st] = on.readScores(filepath.Join(opDir, policy.ScoreFileName))
		Expect(got[st]).NotTo(BeEmpty())
		out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", contract, "audit", "--stage", strconv.Itoa(st)}, policyArgs...)...)
		Expect(code).To(Equal(0), out)
		Expect(out).To(ContainSubstring(fmt.Sprintf("the contract's stage %d (finalized, %d rows", st, len(got[st]))))
		Expect(out).To(ContainSubstring("holds the policy's scores"))
	}

	By("another pass: nothing to write")
	before := on.sent()
	out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", contract, "operate", "--once"}, policyArgs...)...)
	Expect(code).To(Equal(0), out)
	Expect(out).NotTo(ContainSubstring("scores pushed"))
	Expect(out).NotTo(ContainSubstring("stage finalized"))
	Expect(on.sent()).To(Equal(before), "no transaction was sent")
	return got
}
