// Package foundry_test deploys and operates the scoring contract on the local EVM rollup with
// the tools a rollup team brings: Foundry (forge running a deploy script in the official
// initia-labs/vip-score-evm recipe's shape, cast writing scores and finalizing) and ethers,
// all pinned in package.json, beside vipctl, which checks and operates what forge deployed.
// Everything starts from the env file `vipctl localnet up` writes, as a user sources it.
package foundry_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestFoundry(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Foundry and ethers suite")
}

var _ = harness.BuildVipctl(&vipctl)
