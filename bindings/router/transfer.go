package router

import (
	"context"
	"errors"
	"fmt"
)

// Signer holds the keys of a transfer; the service never sees them.
type Signer interface {
	// SignAndBroadcast signs tx, broadcasts it on its chain and returns once the chain has
	// included it successfully, with its hash and chain id as track expects them.
	SignAndBroadcast(ctx context.Context, tx Tx) (txHash, chainID string, err error)
	// SignOPHook signs the hook the service returned for a route with required_op_hook.
	SignOPHook(ctx context.Context, hook OPHookResponse) (SignedOPHook, error)
}

// TransferRequest is what Transfer moves, and where.
type TransferRequest struct {
	Route RouteRequest
	// Addresses maps each chain id of the route's required_chain_addresses to the address
	// to use there (sender on the source chain, recovery addresses on the way, recipient
	// on the destination).
	Addresses map[string]string
	// SlippageTolerancePercent is sent to msgs (default "1").
	SlippageTolerancePercent string
	// TimeoutSeconds is sent to msgs when set (IBC timeout; the service's default is 300).
	TimeoutSeconds string
	// OPHookSourceAddress is the op-hook request's source_address. Default: the address of
	// the chain the first OPinit hop after the first hop starts from, where the hook runs.
	OPHookSourceAddress string
	// OnStatus, if set, is called with each status answer whose state changed.
	OnStatus func(TrackRequest, *StatusResponse)
}

// SentTx is one transaction of a transfer and its tracking.
type SentTx struct {
	TxHash      string
	ChainID     string
	Tracked     *TrackResponse
	TrackTries  int
	FinalStatus *StatusResponse
}

// TransferResult is everything a transfer went through.
type TransferResult struct {
	Route  *RouteResponse
	OPHook *OPHookResponse // nil unless the route required it
	Msgs   *MsgsResponse
	Txs    []SentTx
}

// Status is the final status of the last transaction, or nil.
func (r *TransferResult) Status() *StatusResponse {
	if r == nil || len(r.Txs) == 0 {
		return nil
	}
	return r.Txs[len(r.Txs)-1].FinalStatus
}

// TransferError is returned when a transfer reached a terminal state other than success.
type TransferError struct {
	TxHash  string
	ChainID string
	Status  *StatusResponse
}

func (e *TransferError) Error() string {
	msg := fmt.Sprintf("router: transfer of tx %s on %s ended %s", e.TxHash, e.ChainID, e.Status.State)
	if e.Status.Status != "" {
		msg += " (" + e.Status.Status + ")"
	}
	if e.Status.Error != nil {
		msg += ": " + e.Status.Error.Type + ": " + e.Status.Error.Message
	}
	return msg
}

// Transfer carries out a whole transfer: route; when the route has required_op_hook, the
// op-hook request and the signer's signature of it, sent to msgs as signed_op_hook; msgs
// with one address per required chain, the route's operations and the slippage; then for
// each returned transaction in order: the signer signs and broadcasts it, track is asked
// (retried with backoff while the service has not seen the tx yet) and the status is polled
// with backoff until terminal. All waits end with ctx.
//
// The result holds what was done so far even when err is not nil. A transfer that ends in a
// failure state returns a *TransferError carrying the final status.
func (c *Client) Transfer(ctx context.Context, req TransferRequest, signer Signer) (*TransferResult, error) {
	if signer == nil {
		return nil, errors.New("router: transfer: nil signer")
	}
	res := &TransferResult{}
	route, err := c.Route(ctx, req.Route)
	if err != nil {
		return res, err
	}
	res.Route = route
	addrs := make([]string, len(route.RequiredChainAddresses))
	for i, chain := range route.RequiredChainAddresses {
		a, ok := req.Addresses[chain]
		if !ok || a == "" {
			return res, fmt.Errorf("router: transfer: no address for chain %s (required: %v)", chain, route.RequiredChainAddresses)
		}
		addrs[i] = a
	}
	mreq := MsgsRequest{
		SourceAssetDenom:         route.SourceAssetDenom,
		SourceAssetChainID:       route.SourceAssetChainID,
		DestAssetDenom:           route.DestAssetDenom,
		DestAssetChainID:         route.DestAssetChainID,
		AmountIn:                 route.AmountIn,
		AmountOut:                route.AmountOut,
		AddressList:              addrs,
		Operations:               route.Operations,
		EstimatedAmountOut:       route.EstimatedAmountOut,
		SlippageTolerancePercent: req.SlippageTolerancePercent,
		TimeoutSeconds:           req.TimeoutSeconds,
	}
	if mreq.SlippageTolerancePercent == "" {
		mreq.SlippageTolerancePercent = "1"
	}
	if route.RequiredOPHook {
		src := req.OPHookSourceAddress
		if src == "" {
			src = hookSourceAddress(route, req.Addresses)
		}
		if src == "" {
			return res, errors.New("router: transfer: the route requires an OP hook but no source address is known for it (set OPHookSourceAddress)")
		}
		hook, err := c.OPHook(ctx, OPHookRequest{
			SourceAddress:      src,
			SourceAssetChainID: route.SourceAssetChainID,
			SourceAssetDenom:   route.SourceAssetDenom,
			DestAddress:        addrs[len(addrs)-1],
			DestAssetChainID:   route.DestAssetChainID,
			DestAssetDenom:     route.DestAssetDenom,
		})
		if err != nil {
			return res, err
		}
		res.OPHook = hook
		signed, err := signer.SignOPHook(ctx, *hook)
		if err != nil {
			return res, fmt.Errorf("router: transfer: sign op hook: %w", err)
		}
		mreq.SignedOPHook = &signed
	}
	msgs, err := c.Msgs(ctx, mreq)
	if err != nil {
		return res, err
	}
	res.Msgs = msgs
	if len(msgs.Txs) == 0 {
		return res, errors.New("router: transfer: msgs returned no transactions")
	}
	for i, tx := range msgs.Txs {
		hash, chain, err := signer.SignAndBroadcast(ctx, tx)
		if err != nil {
			return res, fmt.Errorf("router: transfer: tx %d of %d on %s: %w", i+1, len(msgs.Txs), tx.ChainID(), err)
		}
		res.Txs = append(res.Txs, SentTx{TxHash: hash, ChainID: chain})
		sent := &res.Txs[len(res.Txs)-1]
		c.log.Info("router: broadcast", "tx", hash, "chain", chain)
		treq := TrackRequest{TxHash: hash, ChainID: chain}
		sent.Tracked, sent.TrackTries, err = c.WaitTracked(ctx, treq)
		if err != nil {
			return res, err
		}
		var onUpdate func(*StatusResponse)
		if req.OnStatus != nil {
			onUpdate = func(st *StatusResponse) { req.OnStatus(treq, st) }
		}
		sent.FinalStatus, err = c.WaitStatus(ctx, treq, onUpdate)
		if err != nil {
			return res, err
		}
		if !sent.FinalStatus.Succeeded() {
			return res, &TransferError{TxHash: hash, ChainID: chain, Status: sent.FinalStatus}
		}
	}
	return res, nil
}

// hookSourceAddress is the caller's address on the chain where the OP hook runs: the
// start of the first OPinit hop that is not the route's first operation.
func hookSourceAddress(route *RouteResponse, addrs map[string]string) string {
	for i, op := range route.Operations {
		if i > 0 && op.OPInitTransfer != nil {
			return addrs[op.OPInitTransfer.FromChainID]
		}
	}
	return ""
}
