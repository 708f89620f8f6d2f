// Package vipscore is the abigen (v2) binding of contracts/evm/VipScore.sol, generated from
// the committed artifacts; regen_test.go fails when it is stale.
package vipscore

//go:generate go tool abigen --v2 --abi ../../contracts/evm/artifacts/VipScore.abi.json --bin ../../contracts/evm/artifacts/VipScore.bin --pkg vipscore --type VipScore --out vipscore.go
