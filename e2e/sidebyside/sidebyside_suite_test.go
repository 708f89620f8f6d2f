package sidebyside_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/format"
)

func TestSideBySide(t *testing.T) {
	RegisterFailHandler(Fail)
	// A difference is shown whole: both sides' answers, however long.
	format.MaxLength = 0
	RunSpecs(t, "Side by side: the project's rollups beside Initia's real minitiad")
}
