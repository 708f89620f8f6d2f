package router

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// OPHookEnvelope is the signed hook the local stand-in accepts in signed_op_hook.hook
// (base64 of its JSON). The real service expects a Cosmos transaction signed with
// eth_secp256k1 on the hook's chain (protobuf bytes, base64); that needs the chain's account
// number and sequence, which a local EVM rollup does not have. The envelope keeps what
// matters for the flow: the hook's chain and messages, the signer's address and an
// EIP-191 signature over OPHookSignDoc by the signer's key.
type OPHookEnvelope struct {
	ChainID   string      `json:"chain_id"`
	Signer    string      `json:"signer"`
	Hook      []CosmosMsg `json:"hook"`
	Signature string      `json:"signature"` // 0x-hex, 65 bytes (r, s, v)
}

// OPHookSignDoc is the byte string an OP hook signature covers: the canonical JSON of
// chain_id, signer and hook, in that order.
func OPHookSignDoc(chainID, signer string, hook []CosmosMsg) []byte {
	doc := struct {
		ChainID string      `json:"chain_id"`
		Signer  string      `json:"signer"`
		Hook    []CosmosMsg `json:"hook"`
	}{chainID, signer, hook}
	if doc.Hook == nil {
		doc.Hook = []CosmosMsg{}
	}
	b, _ := json.Marshal(doc) // strings and slices of strings: cannot fail
	return b
}

// Encode returns the envelope as the base64 hook string of a SignedOPHook.
func (e OPHookEnvelope) Encode() string {
	b, _ := json.Marshal(e)
	return base64.StdEncoding.EncodeToString(b)
}

// DecodeOPHookEnvelope reads a SignedOPHook hook string made by Encode.
func DecodeOPHookEnvelope(hook string) (OPHookEnvelope, error) {
	var e OPHookEnvelope
	raw, err := base64.StdEncoding.DecodeString(hook)
	if err != nil {
		return e, fmt.Errorf("op hook: not base64: %w", err)
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, fmt.Errorf("op hook: not a signed hook envelope: %w", err)
	}
	if e.ChainID == "" || e.Signer == "" || len(e.Hook) == 0 || e.Signature == "" {
		return e, errors.New("op hook: envelope lacks chain_id, signer, hook or signature")
	}
	return e, nil
}
