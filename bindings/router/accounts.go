package router

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// AccountLookup finds an account's number and sequence on a Cosmos chain.
type AccountLookup func(ctx context.Context, chainID, address string) (number, sequence uint64, err error)

// RESTAccounts looks accounts up at GET {rest}/cosmos/auth/v1beta1/accounts/{address} of
// each chain's Cosmos REST base URL, keyed by chain id; hc nil is http.DefaultClient.
func RESTAccounts(hc *http.Client, restURLs map[string]string) AccountLookup {
	return func(ctx context.Context, chainID, address string) (uint64, uint64, error) {
		base, ok := restURLs[chainID]
		if !ok {
			return 0, 0, fmt.Errorf("no REST URL for chain %s", chainID)
		}
		return ReadAccount(ctx, hc, base, address)
	}
}

// ReadAccount reads an account's number and sequence from a Cosmos REST base URL. Module
// and vesting accounts nest theirs in base_account, as the auth module writes them. hc nil
// is http.DefaultClient.
func ReadAccount(ctx context.Context, hc *http.Client, restURL, address string) (number, sequence uint64, err error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	u := strings.TrimRight(restURL, "/") + "/cosmos/auth/v1beta1/accounts/" + url.PathEscape(address)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, 0, err
	}
	res, err := hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return 0, 0, err
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(b, &e)
		return 0, 0, fmt.Errorf("GET %s: %d %s", u, res.StatusCode, e.Message)
	}
	type base struct {
		AccountNumber string `json:"account_number"`
		Sequence      string `json:"sequence"`
	}
	var out struct {
		Account struct {
			base
			BaseAccount *base `json:"base_account"`
			Base        *struct {
				BaseAccount *base `json:"base_account"`
			} `json:"base_vesting_account"`
		} `json:"account"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return 0, 0, fmt.Errorf("GET %s: %w", u, err)
	}
	acc := out.Account.base
	switch {
	case out.Account.BaseAccount != nil:
		acc = *out.Account.BaseAccount
	case out.Account.Base != nil && out.Account.Base.BaseAccount != nil:
		acc = *out.Account.Base.BaseAccount
	}
	if number, err = strconv.ParseUint(acc.AccountNumber, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("GET %s: account_number %q: %w", u, acc.AccountNumber, err)
	}
	if sequence, err = strconv.ParseUint(acc.Sequence, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("GET %s: sequence %q: %w", u, acc.Sequence, err)
	}
	return number, sequence, nil
}
