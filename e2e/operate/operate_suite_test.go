// Package operate_test drives `vipctl operate` as a team runs it, on every VM and engine:
// the L1 stand-in moves through stages by its agent's signed txs while the operator runs, the
// score source changes between polls, the operator is SIGKILLed and restarted, and the
// source fails; every stage must end finalized once with exactly the source's final scores.
package operate_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestOperate(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "operate suite")
}

var _ = harness.BuildVipctl(&vipctl)
