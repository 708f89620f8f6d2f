package router

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	api "github.com/vipharness/vipharness/bindings/router"
)

// The signed OP hook carries the signer's sequence, and its signature covers the account
// number: both belong to the hook chain. A chain linked with WithAccounts answers them from
// its Cosmos REST face. Cosmos chains the stand-in only simulates keep their accounts here:
// an account is numbered the first time it is asked for, and its sequence moves on each
// time a transfer that runs its hook is tracked. They are served, in the auth module's
// shape, at ChainRESTURL(chain)/cosmos/auth/v1beta1/accounts/{address}, so a wallet signs
// the hook as it would against the chain's own REST.

// chainRESTPrefix is where the simulated chains' REST faces live.
const chainRESTPrefix = "/chains/"

// firstAccountNumber is the number of a simulated chain's first account (genesis and
// module accounts come before it on a real chain).
const firstAccountNumber = 10

type simAccount struct{ number, sequence uint64 }

// WithAccounts links a graph chain's accounts to a Cosmos REST face (its
// /cosmos/auth/v1beta1/accounts/{address}): a signed OP hook on that chain is verified with
// the account number and sequence read there.
func WithAccounts(chainID, restURL string) Option {
	return func(c *config) {
		if c.accountLinks == nil {
			c.accountLinks = map[string]string{}
		}
		c.accountLinks[chainID] = restURL
	}
}

// ChainRESTURL is the REST base URL of a chain the stand-in simulates (a Cosmos chain of
// the graph not linked with WithAccounts); it serves the chain's accounts.
func (s *Server) ChainRESTURL(chainID string) string {
	return s.url + chainRESTPrefix + chainID + "/rest"
}

// account is the number and sequence of address on chainID.
func (s *Server) account(ctx context.Context, chainID, address string) (number, sequence uint64, err error) {
	if u, ok := s.cfg.accountLinks[chainID]; ok {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return api.ReadAccount(ctx, s.hc, u, address)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.simAccount(chainID, address)
	return a.number, a.sequence, nil
}

// simAccount returns (creating) a simulated account; s.mu held.
func (s *Server) simAccount(chainID, address string) *simAccount {
	m := s.accounts[chainID]
	if m == nil {
		m = map[string]*simAccount{}
		s.accounts[chainID] = m
	}
	a := m[address]
	if a == nil {
		s.nextAccount++
		a = &simAccount{number: firstAccountNumber + s.nextAccount - 1}
		m[address] = a
	}
	return a
}

// runHook runs the signed hook of the transfer tx carries on its simulated hook chain, as
// the chain runs a tx: with the signer's current sequence it succeeds and moves the sequence
// on; with another (a hook signed before a later one ran) it fails, and the transfer fails at
// the hook's hop with the funds on the hook chain. Hooks on chains linked with WithAccounts
// run there, out of the stand-in's sight. It returns the faults the transfer runs with.
func (s *Server) runHook(tx ChainTx, f Faults) Faults {
	id, ok := routeIDFromCalldata(tx.Data)
	if !ok {
		return f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.plans[id]
	if p == nil || p.hookHop < 0 || (f.StuckHop != nil && *f.StuckHop < p.hookHop) || (f.FailHop != nil && *f.FailHop < p.hookHop) {
		return f
	}
	chainID := p.path[p.hookHop].bridge.FromChainID
	if _, linked := s.cfg.accountLinks[chainID]; linked {
		return f
	}
	a := s.simAccount(chainID, p.addrs[p.hookHop])
	if p.hookSeq != a.sequence {
		hi := p.hookHop
		f.FailHop = &hi
		f.FailMessage = fmt.Sprintf("op hook: account sequence mismatch, expected %d, got %d: incorrect account sequence", a.sequence, p.hookSeq)
		return f
	}
	a.sequence++
	return f
}

// serveChainREST answers a simulated chain's account route; other paths under it are 501,
// as the evm rest face answers routes it does not serve.
func (s *Server) serveChainREST(w http.ResponseWriter, r *http.Request, path string) {
	rest := strings.TrimPrefix(path, chainRESTPrefix)
	chainID, tail, ok := strings.Cut(rest, "/rest/")
	c := s.ix.chains[chainID]
	_, linked := s.cfg.accountLinks[chainID]
	switch {
	case !ok || c == nil:
		writeErr(w, &apiErr{status: http.StatusNotFound, code: api.CodeNotFound, msg: "Not Found"})
		return
	case linked || c.ChainType != ChainCosmos:
		writeErr(w, &apiErr{status: http.StatusNotFound, code: api.CodeNotFound, msg: fmt.Sprintf("chain %s is not simulated here: ask its own node", chainID)})
		return
	case r.Method != http.MethodGet:
		w.Header().Set("Allow", http.MethodGet)
		writeErr(w, &apiErr{status: http.StatusMethodNotAllowed, code: api.CodeUnimplemented, msg: "Method Not Allowed"})
		return
	}
	addr, ok := strings.CutPrefix(tail, "cosmos/auth/v1beta1/accounts/")
	if !ok || addr == "" || strings.Contains(addr, "/") {
		writeErr(w, &apiErr{status: http.StatusNotImplemented, code: api.CodeUnimplemented, msg: "Not Implemented"})
		return
	}
	if e := checkAddress("address", c, addr); e != nil {
		e.msg = fmt.Sprintf("invalid address %s: want a bech32 %s1... account", addr, c.Bech32Prefix)
		writeErr(w, e)
		return
	}
	num, seq, _ := s.account(r.Context(), chainID, addr)
	writeJSON(w, http.StatusOK, map[string]any{"account": map[string]any{
		"@type": "/cosmos.auth.v1beta1.BaseAccount", "address": addr, "pub_key": nil,
		"account_number": strconv.FormatUint(num, 10), "sequence": strconv.FormatUint(seq, 10),
	}})
}
