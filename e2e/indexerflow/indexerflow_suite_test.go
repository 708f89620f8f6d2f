package indexerflow_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestIndexerFlow(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Indexer flow suite")
}
