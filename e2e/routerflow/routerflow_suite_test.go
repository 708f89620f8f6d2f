package routerflow_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRouterFlow(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Router flow suite")
}
