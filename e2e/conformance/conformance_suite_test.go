package conformance_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "vipctl check suite")
}

var _ = harness.BuildVipctl(&vipctl)
