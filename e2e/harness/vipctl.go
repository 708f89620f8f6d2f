package harness

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// BuildVipctl registers the suite nodes that build cmd/vipctl once per suite run (on the
// first parallel process) and store its path in *bin for every process, and remove the
// build when the suite ends. Use it at package level: var _ = harness.BuildVipctl(&vipctl).
func BuildVipctl(bin *string) bool {
	ginkgo.SynchronizedBeforeSuite(func() []byte {
		path, err := gexec.Build("github.com/vipharness/vipharness/cmd/vipctl")
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		return []byte(path)
	}, func(path []byte) {
		*bin = string(path)
	})
	ginkgo.SynchronizedAfterSuite(func() {}, gexec.CleanupBuildArtifacts)
	return true
}
