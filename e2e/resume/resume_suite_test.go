package resume_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/e2e/harness"
)

var vipctl string

func TestResume(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Resume suite")
}

var _ = harness.BuildVipctl(&vipctl)
