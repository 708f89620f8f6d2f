package conformance_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

var vipctl string

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "vipctl check suite")
}

var _ = SynchronizedBeforeSuite(func() []byte {
	bin, err := gexec.Build("github.com/vipharness/vipharness/cmd/vipctl")
	Expect(err).NotTo(HaveOccurred())
	return []byte(bin)
}, func(bin []byte) {
	vipctl = string(bin)
})

var _ = SynchronizedAfterSuite(func() {}, func() {
	gexec.CleanupBuildArtifacts()
})
