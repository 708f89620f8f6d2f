package sidebyside_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSideBySide(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Side by side: the project's rollups beside Initia's real minitiad")
}
