// Package vip is the vocabulary of the VIP scoring contract that every other package speaks:
// the VM kinds, the account key kinds, what a VM means to the code around it (Spec), a
// deployment and a stage as the contract holds them, and the errors callers match. It
// imports only the standard library, so a package that needs a word (localnet, the e2e
// harness, a binding's user) does not pull in the engine that drives the chains.
package vip

import (
	"fmt"
	"strings"
)

// VM names the virtual machine kind of a rollup.
type VM string

const (
	EVM  VM = "evm"
	Move VM = "move"
	Wasm VM = "wasm"
)

// VMs lists every VM kind in a stable order.
var VMs = []VM{EVM, Move, Wasm}

// ParseVM accepts "evm", "move" or "wasm" (any case).
func ParseVM(s string) (VM, error) {
	switch v := VM(strings.ToLower(strings.TrimSpace(s))); v {
	case EVM, Move, Wasm:
		return v, nil
	}
	return "", fmt.Errorf("unknown vm %q: want evm, move or wasm", s)
}

// KeyType is the kind of a Cosmos account key.
type KeyType string

const (
	// Secp256k1 is the Cosmos key (/cosmos.crypto.secp256k1.PubKey), derived with coin type 118;
	// its address is RIPEMD-160(SHA-256(compressed key)).
	Secp256k1 KeyType = "secp256k1"
	// EthSecp256k1 is Initia's Ethereum-style key (/initia.crypto.v1beta1.ethsecp256k1.PubKey),
	// derived with coin type 60; its address is the Ethereum address of the key.
	EthSecp256k1 KeyType = "eth_secp256k1"
)

// ParseKeyType accepts "secp256k1" or "eth_secp256k1" (any case).
func ParseKeyType(s string) (KeyType, error) {
	switch k := KeyType(strings.ToLower(strings.TrimSpace(s))); k {
	case Secp256k1, EthSecp256k1:
		return k, nil
	}
	return "", fmt.Errorf("key type %q: want secp256k1 (coin type 118) or eth_secp256k1 (coin type 60)", s)
}

// CoinType is the BIP44 coin type the key kind is derived with.
func (k KeyType) CoinType() uint32 {
	if k == EthSecp256k1 {
		return 60
	}
	return 118
}
