// Package policy_test runs a published scoring policy end to end on the EVM rollup: a demo
// ERC-20 and game (fixtures/policies/evm) driven by several accounts inside an L1 stage and
// after it; `vipctl scores compute` from the node and from the indexer stand-in gives the
// same bytes and the scores the activity earns by the policy's formulas; the scores are
// pushed and finalized, and the L1 agent's snapshot holds the manifest's merkle root.
package policy_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestPolicy(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "scoring policy suite")
}

var _ = harness.BuildVipctl(&vipctl)
