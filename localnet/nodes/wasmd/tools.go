//go:build tools

// Package wasmd pins cmd/wasmd for `go build` from this tools module.
package wasmd

import _ "github.com/CosmWasm/wasmd/cmd/wasmd"
