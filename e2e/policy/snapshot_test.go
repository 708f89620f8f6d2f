package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/agent"
)

// pushAndSnapshot pushes the score file that scores compute wrote to outDir and finalizes
// the stage with vipctl, has the L1 agent snapshot the stage, and checks that the snapshot
// holds the manifest's merkle root and total; it returns the manifest.
func pushAndSnapshot(ctx context.Context, env *harness.Env, stateDir, contract, outDir string) policy.Manifest {
	out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "scores", "update",
		"--file", filepath.Join(outDir, policy.ScoreFileName), "--stage", strconv.Itoa(stage))
	Expect(code).To(Equal(0), out)
	out, code = env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "stage", "finalize", "--stage", strconv.Itoa(stage), "--yes")
	Expect(code).To(Equal(0), out)
	scorer, err := env.Scorer(ctx, contract)
	Expect(err).NotTo(HaveOccurred())
	done, err := agent.New(env.L1, bridgeID, func(context.Context) (scores.StageReader, error) { return scorer, nil }).Step(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(done).To(Equal([]uint64{stage}))

	l1r := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil)
	version, err := l1r.BridgeVersion(ctx, bridgeID)
	Expect(err).NotTo(HaveOccurred())
	snap, err := l1r.Snapshot(ctx, bridgeID, version, stage)
	Expect(err).NotTo(HaveOccurred())
	var m policy.Manifest
	raw, err := os.ReadFile(filepath.Join(outDir, policy.ManifestName))
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(raw, &m)).To(Succeed())
	Expect("0x" + common.Bytes2Hex(snap.MerkleRoot)).To(Equal(m.Merkle.Root))
	Expect(strconv.FormatUint(snap.TotalL2Score, 10)).To(Equal(m.Merkle.Total))
	return m
}
