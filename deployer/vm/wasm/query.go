package wasm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// Smart runs a contract smart query through wasmd's REST route and decodes its JSON answer
// into out.
func Smart(ctx context.Context, c *cosmostx.Client, contract string, query, out any) error {
	q, err := json.Marshal(query)
	if err != nil {
		return err
	}
	path := fmt.Sprintf("/cosmwasm/wasm/v1/contract/%s/smart/%s", contract, url.PathEscape(base64.StdEncoding.EncodeToString(q)))
	var res struct {
		Data json.RawMessage `json:"data"`
	}
	if err := c.GetJSON(ctx, path, &res); err != nil {
		return err
	}
	if err := json.Unmarshal(res.Data, out); err != nil {
		return fmt.Errorf("decode smart query reply %s: %w", res.Data, err)
	}
	return nil
}

// Raw reads a contract's raw storage value at key through wasmd's REST route; a missing key
// is nil.
func Raw(ctx context.Context, c *cosmostx.Client, contract string, key []byte) ([]byte, error) {
	path := fmt.Sprintf("/cosmwasm/wasm/v1/contract/%s/raw/%s", contract, url.PathEscape(base64.StdEncoding.EncodeToString(key)))
	var res struct {
		Data []byte `json:"data"`
	}
	if err := c.GetJSON(ctx, path, &res); err != nil {
		return nil, err
	}
	return res.Data, nil
}
