package signers_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSigners(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Signers suite")
}
