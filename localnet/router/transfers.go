package router

import (
	"context"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

const never = math.MaxInt

var (
	evmHashRe    = regexp.MustCompile(`^0x[0-9a-fA-F]{64}$`)
	cosmosHashRe = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)
)

// normHash checks a tx hash's form for the chain and returns its map key form.
func normHash(c *Chain, h string) (string, *apiErr) {
	if c.ChainType == ChainEVM {
		if !evmHashRe.MatchString(h) {
			return "", badField("tx_hash", "must be 0x and 64 hex digits on an EVM chain")
		}
		return strings.ToLower(h), nil
	}
	if !cosmosHashRe.MatchString(h) {
		return "", badField("tx_hash", "must be 64 hex digits on a Cosmos chain")
	}
	return strings.ToUpper(h), nil
}

// hopTimeline is one hop of a tracked transfer and the steps its events happen at.
type hopTimeline struct {
	hop
	from, to            *Chain
	amountIn, amountOut *big.Int
	send, recv, ack     int // ack: IBC only
	sendTx, recvTx      string
	ackTx               string
}

// transfer is a tracked transaction; it is not changed after track creates it, so its
// status is a pure function of the time elapsed.
type transfer struct {
	key       string
	chain     *Chain
	txHash    string
	explorer  string
	trackedAt time.Time
	tx        ChainTx
	plan      *plan
	mismatch  string
	hops      []hopTimeline
	failHop   int // -1: none
	stuckHop  int // -1: none
	failMsg   string
	doneStep  int // success, or the failure's terminal step
}

func (s *Server) handleTrack(r *http.Request) (any, *apiErr) {
	var req api.TrackRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	if req.TxHash == "" {
		return nil, badField("tx_hash", "is required")
	}
	if req.ChainID == "" {
		return nil, badField("chain_id", "is required")
	}
	chain, ok := s.ix.chains[req.ChainID]
	if !ok {
		return nil, notFound("chain ID not supported")
	}
	h, e := normHash(chain, req.TxHash)
	if e != nil {
		return nil, e
	}
	key := chain.ChainID + "/" + h
	s.mu.Lock()
	if s.faults.TrackNotFound > 0 {
		s.faults.TrackNotFound--
		s.mu.Unlock()
		s.cfg.log.Info("router: track lost (injected)", "tx", req.TxHash)
		return nil, notFound("tx not found")
	}
	if t, ok := s.transfers[key]; ok {
		s.mu.Unlock()
		return &api.TrackResponse{TxHash: req.TxHash, ExplorerLink: t.explorer}, nil
	}
	faults := s.faults
	s.mu.Unlock()

	src, ok := s.sources[chain.ChainID]
	if !ok {
		return nil, notFound(fmt.Sprintf("chain ID not supported: %s is not linked to a local node", chain.ChainID))
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	tx, found, err := src.TxByHash(ctx, h)
	if err != nil {
		return nil, &apiErr{status: http.StatusServiceUnavailable, code: api.CodeUnavailable, msg: fmt.Sprintf("chain %s: %v", chain.ChainID, err)}
	}
	if !found {
		return nil, notFound("tx not found")
	}
	if !tx.Success {
		e := badField("tx_hash", "tx is invalid on chain: it did not execute successfully")
		e.msg = "tx is invalid on chain"
		return nil, e
	}
	// One new transfer at a time, so the hook it runs sees the sequence the one before left.
	s.trackMu.Lock()
	defer s.trackMu.Unlock()
	s.mu.Lock()
	old, seen := s.transfers[key]
	s.mu.Unlock()
	if seen {
		return &api.TrackResponse{TxHash: req.TxHash, ExplorerLink: old.explorer}, nil
	}
	t := s.newTransfer(key, chain, req.TxHash, tx, faults)
	if t.plan != nil && t.mismatch == "" {
		// the bridge took the funds: the hook runs when they arrive on the hook chain
		if hf := s.runHook(tx, faults); hf.FailHop != faults.FailHop {
			t = s.newTransfer(key, chain, req.TxHash, tx, hf)
		}
	}
	s.mu.Lock()
	s.transfers[key] = t
	s.mu.Unlock()
	s.cfg.log.Info("router: tracking", "tx", req.TxHash, "chain", chain.ChainID, "hops", len(t.hops), "routed", t.plan != nil)
	return &api.TrackResponse{TxHash: req.TxHash, ExplorerLink: t.explorer}, nil
}

func explorerLink(c *Chain, hash string) string {
	return strings.ReplaceAll(c.ExplorerTxURL, "{tx_hash}", hash)
}

// newTransfer lays out a transfer's timeline in steps from track: observed at step 1; each
// hop received one or two steps after it was sent (the next hop is sent by the same
// transaction that received this one); an IBC hop acknowledged one step after receipt.
func (s *Server) newTransfer(key string, chain *Chain, hash string, tx ChainTx, f Faults) *transfer {
	t := &transfer{key: key, chain: chain, txHash: hash, explorer: explorerLink(chain, hash), trackedAt: s.now(), tx: tx, failHop: -1, stuckHop: -1}
	id, ok := routeIDFromCalldata(tx.Data)
	if !ok {
		return t // not a transfer this service built: nothing follows the tx
	}
	s.mu.Lock()
	p := s.plans[id]
	s.mu.Unlock()
	if p == nil {
		return t
	}
	t.plan = p
	switch {
	case !strings.EqualFold(tx.To, p.escrow):
		t.mismatch = fmt.Sprintf("tx sends to %s, the route's escrow is %s", tx.To, p.escrow)
	case tx.Value == nil || tx.Value.Cmp(p.amountIn) != 0:
		t.mismatch = fmt.Sprintf("tx sends %v, the route needs amount_in %s", tx.Value, p.amountIn)
	case tx.From != "" && !strings.EqualFold(tx.From, p.addrs[0]):
		t.mismatch = fmt.Sprintf("tx is from %s, the route's sender is %s", tx.From, p.addrs[0])
	}
	if t.mismatch != "" {
		t.doneStep = 1
		return t
	}
	last := len(p.path) - 1
	if f.FailHop != nil {
		t.failHop = min(*f.FailHop, last)
		t.failMsg = f.FailMessage
		if t.failMsg == "" {
			t.failMsg = fmt.Sprintf("hop %d failed (injected fault)", t.failHop)
		}
	}
	if f.StuckHop != nil && t.failHop < 0 {
		t.stuckHop = min(*f.StuckHop, last)
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	rng := rand.New(rand.NewPCG(s.cfg.seed, h.Sum64()))
	step := 1
	prevIn := p.amountIn
	sendTx := hash
	for i, hp := range p.path {
		ht := hopTimeline{hop: hp, from: s.ix.chains[hp.bridge.FromChainID], to: s.ix.chains[hp.bridge.ToChainID],
			amountIn: prevIn, amountOut: p.outs[i], send: step, recv: never, ack: never, sendTx: sendTx}
		prevIn = p.outs[i]
		ht.recvTx = fakeHash(ht.to, key, i, "recv")
		if hp.bridge.Type == api.BridgeIBC {
			ht.ackTx = fakeHash(ht.from, key, i, "ack")
		}
		switch {
		case i == t.stuckHop:
			t.doneStep = never
		case i == t.failHop && hp.bridge.Type == api.BridgeOPInit:
			// the hook fails on the hook chain: nothing is sent over the bridge
			ht.send = step
			t.doneStep = step + 1
		default:
			ht.recv = step + 1 + rng.IntN(2)
			if hp.bridge.Type == api.BridgeIBC {
				ht.ack = ht.recv + 1
			}
		}
		t.hops = append(t.hops, ht)
		if i == t.stuckHop || i == t.failHop {
			if i == t.failHop && hp.bridge.Type == api.BridgeIBC {
				t.doneStep = ht.ack
			}
			break
		}
		step = ht.recv
		sendTx = ht.recvTx
	}
	if t.failHop < 0 && t.stuckHop < 0 {
		for _, ht := range t.hops {
			t.doneStep = max(t.doneStep, ht.recv)
			if ht.ack != never {
				t.doneStep = max(t.doneStep, ht.ack)
			}
		}
	}
	return t
}

// fakeHash is the hash of a relayer's transaction on chain c, in the chain's hash form.
func fakeHash(c *Chain, key string, i int, kind string) string {
	h := crypto.Keccak256([]byte(key + "/" + strconv.Itoa(i) + "/" + kind))
	if c.ChainType == ChainEVM {
		return "0x" + hex.EncodeToString(h)
	}
	return strings.ToUpper(hex.EncodeToString(h))
}

func (s *Server) handleStatus(r *http.Request) (any, *apiErr) {
	q := r.URL.Query()
	hash, chainID := q.Get("tx_hash"), q.Get("chain_id")
	if hash == "" {
		return nil, badField("tx_hash", "is required")
	}
	if chainID == "" {
		return nil, badField("chain_id", "is required")
	}
	chain, ok := s.ix.chains[chainID]
	if !ok {
		return nil, notFound("chain ID not supported")
	}
	h, e := normHash(chain, hash)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	t := s.transfers[chain.ChainID+"/"+h]
	s.mu.Unlock()
	if t == nil {
		return nil, notFound("tx not found")
	}
	elapsed := s.now().Sub(t.trackedAt)
	n := int(elapsed / s.cfg.step)
	if elapsed < 0 {
		n = 0
	}
	return s.statusAt(t, n), nil
}

func (s *Server) chainTx(c *Chain, hash string, t *transfer, step int) *api.ChainTransaction {
	at := t.trackedAt.Add(time.Duration(step) * s.cfg.step)
	if step <= 1 && !t.tx.Time.IsZero() && hash == t.txHash {
		at = t.tx.Time
	}
	return &api.ChainTransaction{ChainID: c.ChainID, TxHash: hash, ExplorerLink: explorerLink(c, hash), OnChainAt: at.UTC().Format(time.RFC3339)}
}

// statusAt is the transfer's status n steps after track.
func (s *Server) statusAt(t *transfer, n int) *api.StatusResponse {
	ts := api.TransferStatus{TransferSequence: []api.TransferEvent{}}
	status := ""
	src := t.plan
	switch {
	case n < 1:
		ts.State, status = api.StateSubmitted, api.StateSubmitted
	case t.plan == nil:
		// A transaction this service did not build: it is on chain and nothing follows.
		ts.State, status = api.StateCompletedSuccess, api.StateCompleted
	case t.mismatch != "":
		ts.State, status = api.StateCompletedError, api.StateFailed
		ts.Error = &api.StatusError{Type: api.StatusErrorTransactionExecution, Message: t.mismatch}
		amt := src.amountIn.String()
		ts.TransferAssetRelease = &api.TransferAssetRelease{ChainID: t.chain.ChainID, Denom: src.path[0].denomIn, Amount: &amt, Released: true}
	default:
		s.fillHops(t, n, &ts)
		status = ts.State
		switch ts.State {
		case api.StateCompletedSuccess:
			status = api.StateCompleted
		case api.StateCompletedError, api.StateAbandoned:
			status = api.StateFailed
		case api.StatePendingError:
			status = api.StatePending
		}
	}
	return &api.StatusResponse{
		Transfers:            []api.TransferStatus{ts},
		State:                ts.State,
		NextBlockingTransfer: ts.NextBlockingTransfer,
		TransferAssetRelease: ts.TransferAssetRelease,
		Error:                ts.Error,
		TransferSequence:     ts.TransferSequence,
		Status:               status,
	}
}

func (s *Server) fillHops(t *transfer, n int, ts *api.TransferStatus) {
	blocking := -1
	failedAt := never
	for i, ht := range t.hops {
		if ht.send > n {
			break
		}
		failing := i == t.failHop
		var ev api.TransferEvent
		switch ht.bridge.Type {
		case api.BridgeIBC:
			info := &api.IBCTransferInfo{FromChainID: ht.from.ChainID, ToChainID: ht.to.ChainID, State: api.TransferPending,
				SrcChainID: ht.from.ChainID, DstChainID: ht.to.ChainID}
			info.PacketTxs.SendTx = s.chainTx(ht.from, ht.sendTx, t, ht.send)
			if n >= ht.recv {
				info.State = api.TransferReceived
				info.PacketTxs.ReceiveTx = s.chainTx(ht.to, ht.recvTx, t, ht.recv)
				if failing {
					info.State = api.TransferFailure
					info.PacketTxs.Error = &api.PacketError{Type: api.PacketErrorAcknowledgement, Message: t.failMsg}
					failedAt = ht.recv
				}
			}
			if n >= ht.ack {
				info.PacketTxs.AcknowledgeTx = s.chainTx(ht.from, ht.ackTx, t, ht.ack)
				if !failing {
					info.State = api.TransferSuccess
				}
			}
			ev.IBCTransfer = info
		case api.BridgeOPInit:
			info := &api.OPInitTransferInfo{FromChainID: ht.from.ChainID, ToChainID: ht.to.ChainID, State: api.OPInitTransferSent}
			if failing {
				info.State = api.OPInitTransferUnknown
				failedAt = ht.send
			} else {
				info.Txs.SendTx = s.chainTx(ht.from, ht.sendTx, t, ht.send)
				if n >= ht.recv {
					info.State = api.OPInitTransferReceived
					info.Txs.ReceiveTx = s.chainTx(ht.to, ht.recvTx, t, ht.recv)
				}
			}
			ev.OPInitTransfer = info
		}
		done := ht.recv
		if ht.bridge.Type == api.BridgeIBC {
			done = ht.ack
		}
		if blocking < 0 && n < done && !failing {
			blocking = i
		}
		ts.TransferSequence = append(ts.TransferSequence, ev)
	}
	last := t.hops[len(t.hops)-1]
	switch {
	case t.failHop >= 0 && n >= t.doneStep:
		fh := t.hops[t.failHop]
		ts.State = api.StateCompletedError
		ts.Error = &api.StatusError{Type: api.StatusErrorTransfer, Message: t.failMsg}
		amt := fh.amountIn.String()
		ts.TransferAssetRelease = &api.TransferAssetRelease{ChainID: fh.from.ChainID, Denom: fh.denomIn, Amount: &amt, Released: true}
	case t.failHop >= 0 && n >= failedAt:
		ts.State = api.StatePendingError
	case t.stuckHop < 0 && t.failHop < 0 && n >= t.doneStep:
		ts.State = api.StateCompletedSuccess
		amt := last.amountOut.String()
		ts.TransferAssetRelease = &api.TransferAssetRelease{ChainID: last.to.ChainID, Denom: last.denomOut, Amount: &amt, Released: true}
	case t.stuckHop >= 0 && s.cfg.abandonAfter > 0 && n >= t.hops[t.stuckHop].send+s.abandonSteps():
		ts.State = api.StateAbandoned
		ts.Error = &api.StatusError{Type: api.StatusErrorTransfer, Message: fmt.Sprintf("tracking abandoned: hop %d (%s -> %s) stalled", t.stuckHop, t.hops[t.stuckHop].from.ChainID, t.hops[t.stuckHop].to.ChainID)}
	default:
		ts.State = api.StatePending
		if blocking >= 0 {
			ts.NextBlockingTransfer = &api.NextBlockingTransfer{TransferSequenceIndex: blocking}
		}
	}
}

func (s *Server) abandonSteps() int {
	return int((s.cfg.abandonAfter + s.cfg.step - 1) / s.cfg.step)
}

// TransferCount is the number of tracked transactions.
func (s *Server) TransferCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.transfers)
}
