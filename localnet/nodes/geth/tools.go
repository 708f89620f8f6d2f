//go:build tools

// Package geth pins cmd/geth for `go build` from this tools module.
package geth

import _ "github.com/ethereum/go-ethereum/cmd/geth"
