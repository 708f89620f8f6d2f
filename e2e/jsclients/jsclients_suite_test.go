// Package jsclients_test drives the local rollups and stand-ins with the ecosystem's own
// JavaScript clients, pinned in package.json (Initia's JS SDK, the Skip Go SDK), as an
// application would. A route or shape those clients need and the stand-ins lack fails here.
package jsclients_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSClients(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "JS clients suite")
}
