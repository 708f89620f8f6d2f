// Package audit_test checks the VIP snapshot of finalized stages end to end, on every VM and
// engine: the local agent snapshots each stage on the L1 stand-in, `vipctl audit` rebuilds
// it and finds it matches, a user's line of the proofs file passes the stand-in's claim
// entry on the MoveVM when that user signs it, tampered claims are refused with the module's
// own abort, and a wrong snapshot (another total) makes audit exit 4.
package audit_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestAudit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "audit suite")
}

var _ = harness.BuildVipctl(&vipctl)
