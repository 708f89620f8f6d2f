// Package indexer is a local stand-in for Initia's rollytics indexer. On a Move or Wasm
// rollup (NewCosmos, cosmos.go) it follows CometBFT and the REST API and serves the Cosmos
// tx and block APIs. On an EVM rollup it follows a live EVM chain over JSON-RPC, keeps every
// transaction's receipt in an in-memory store indexed by sequence, account, height and
// hash, and serves
//
//	GET /indexer/tx/v1/evm-txs
//	GET /indexer/tx/v1/evm-txs/by_account/{account}
//	GET /indexer/tx/v1/evm-txs/by_height/{height}
//	GET /indexer/tx/v1/evm-txs/{tx_hash}
//
// on 127.0.0.1 with the service's JSON, paging and plain-text errors (see
// fixtures/indexer/README.md). Unlike rollytics, which trusts instant finality, it checks
// every block's parent hash and rolls back and re-indexes when the chain reorganises.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Errors of WaitHeight.
var (
	ErrClosed = errors.New("indexer: closed")
	ErrNoEVM  = errors.New("indexer: serving a chain without EVM; nothing is indexed")
)

// Indexer follows a chain and serves the EVM tx API. Close stops both.
type Indexer struct {
	cfg config
	log *slog.Logger
	src Source
	rpc *rpcSource // nil unless New dialed it
	// cosmos is the Cosmos rollup followed (NewCosmos); nil for an EVM chain.
	cosmos *cosmosChain
	store  *store

	ln         net.Listener
	srv        *http.Server
	cancel     context.CancelFunc
	followDone chan struct{}
	serveDone  chan struct{}
	closed     chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// New dials the EVM JSON-RPC endpoint at rpcURL, starts following the chain from genesis
// and serves the API on 127.0.0.1 (see URL). ctx bounds only the start; the indexer runs
// until Close. With WithNoEVM, rpcURL is not used and may be empty.
func New(ctx context.Context, rpcURL string, opts ...Option) (*Indexer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.noEVM {
		return start(ctx, cfg, nil, nil, nil)
	}
	src, err := dialRPC(ctx, rpcURL)
	if err != nil {
		return nil, err
	}
	if _, err := src.Head(ctx); err != nil {
		src.close()
		return nil, fmt.Errorf("indexer: %s: eth_blockNumber: %w", rpcURL, err)
	}
	ix, err := start(ctx, cfg, src, src, nil)
	if err != nil {
		src.close()
	}
	return ix, err
}

// NewFromSource is New over any Source, such as a MemChain.
func NewFromSource(ctx context.Context, src Source, opts ...Option) (*Indexer, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if src == nil && !cfg.noEVM {
		return nil, errors.New("indexer: nil source")
	}
	return start(ctx, cfg, src, nil, nil)
}

func start(_ context.Context, cfg config, src Source, rpc *rpcSource, cosmos *cosmosChain) (*Indexer, error) {
	if err := checkLoopback(cfg.addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("indexer: listen: %w", err)
	}
	ix := &Indexer{
		cfg:        cfg,
		log:        cfg.log,
		src:        src,
		rpc:        rpc,
		cosmos:     cosmos,
		store:      newStore(),
		ln:         ln,
		followDone: make(chan struct{}),
		serveDone:  make(chan struct{}),
		closed:     make(chan struct{}),
	}
	ix.srv = &http.Server{Handler: ix, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(ix.serveDone)
		if err := ix.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			ix.log.Error("indexer server", "err", err)
		}
	}()
	fctx, cancel := context.WithCancel(context.Background())
	ix.cancel = cancel
	if cosmos == nil && (cfg.noEVM || src == nil) {
		close(ix.followDone)
	} else {
		go ix.follow(fctx)
	}
	ix.log.Info("indexer serving", "url", ix.URL(), "evm", !cfg.noEVM)
	return ix, nil
}

// URL is the base URL of the API, http://127.0.0.1:port (paths start with /indexer).
func (ix *Indexer) URL() string { return "http://" + ix.ln.Addr().String() }

// Handler is the API as an http.Handler, for mounting elsewhere.
func (ix *Indexer) Handler() http.Handler { return ix }

// Height is the highest block indexed so far (0 before the first).
func (ix *Indexer) Height() uint64 {
	h, _, _ := ix.store.tip()
	return h
}

// Count is the number of transactions indexed on the current chain.
func (ix *Indexer) Count() int {
	ix.store.mu.RLock()
	defer ix.store.mu.RUnlock()
	return len(ix.store.txs)
}

// WaitHeight blocks until block h is indexed, ctx ends or the indexer closes.
func (ix *Indexer) WaitHeight(ctx context.Context, h uint64) error {
	if ix.cfg.noEVM && ix.cosmos == nil {
		return ErrNoEVM
	}
	for {
		ix.store.mu.RLock()
		tip, _, ok := ix.store.tipLocked()
		ch := ix.store.progress
		ix.store.mu.RUnlock()
		if ok && tip >= h {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("indexer: waiting for height %d (at %d): %w", h, tip, ctx.Err())
		case <-ix.closed:
			return ErrClosed
		case <-ch:
		}
	}
}

// Close stops following and serving, and waits for both to end. It is safe to call twice.
func (ix *Indexer) Close() error {
	ix.closeOnce.Do(func() {
		close(ix.closed)
		ix.cancel()
		<-ix.followDone
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := ix.srv.Shutdown(ctx)
		if err != nil {
			err = errors.Join(err, ix.srv.Close())
		}
		<-ix.serveDone
		if ix.rpc != nil {
			ix.rpc.close()
		}
		ix.closeErr = err
	})
	return ix.closeErr
}

// follow indexes new blocks until ctx ends: without pause while behind the head, every
// poll interval once caught up or after an error.
func (ix *Indexer) follow(ctx context.Context) {
	defer close(ix.followDone)
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for {
		caughtUp, err := ix.step(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			ix.log.Warn("indexer step failed; retrying", "err", err)
		}
		if err == nil && !caughtUp {
			continue
		}
		t.Reset(ix.cfg.poll)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// step verifies the indexed tip against the chain and indexes up to a batch of blocks
// after it. It reports whether the index reached the chain's head.
func (ix *Indexer) step(ctx context.Context) (caughtUp bool, err error) {
	if ix.cosmos != nil {
		return ix.stepCosmos(ctx)
	}
	head, err := ix.src.Head(ctx)
	if err != nil {
		return false, fmt.Errorf("head: %w", err)
	}
	tip, tipHash, hasTip := ix.store.tip()
	from := uint64(0)
	if hasTip {
		from = min(tip, head) // re-read the tip (or the head, if the chain got shorter) to verify it
	}
	to := min(head, from+ix.cfg.batch)
	hdrs, err := ix.src.Headers(ctx, from, to)
	if err != nil {
		return false, fmt.Errorf("headers %d..%d: %w", from, to, err)
	}
	// A chain without a block 0 (a minievm's first block is 1) starts the index at its first.
	if len(hdrs) == 0 || (hdrs[0].Number != from && (hasTip || from != 0 || hdrs[0].Number != 1)) {
		return false, fmt.Errorf("no header at %d (head %d)", from, head)
	}
	if hasTip {
		stored, _ := ix.store.hashAt(from)
		if hdrs[0].Hash != stored {
			return false, ix.reorg(ctx, from)
		}
		if from < tip {
			n := ix.store.rollback(from, false)
			ix.log.Info("chain shortened; rolled back", "from", tip, "to", from, "txs", n)
			return false, nil
		}
		hdrs = hdrs[1:]
	}
	prev, n := tipHash, 0
	for i, h := range hdrs {
		if (hasTip || i > 0) && h.ParentHash != prev {
			break // the chain moved under the batch; the next step verifies the tip again
		}
		prev = h.Hash
		n++
	}
	complete := n == len(hdrs)
	hdrs = hdrs[:n]
	if len(hdrs) == 0 {
		return complete && to == head, nil
	}
	hashes := make([]common.Hash, len(hdrs))
	for i, h := range hdrs {
		hashes[i] = h.Hash
	}
	receipts, err := ix.src.Receipts(ctx, hashes)
	if err != nil {
		return false, fmt.Errorf("receipts of %d..%d: %w", hdrs[0].Number, hdrs[len(hdrs)-1].Number, err)
	}
	if len(receipts) != len(hdrs) {
		return false, fmt.Errorf("receipts of %d blocks for %d asked", len(receipts), len(hdrs))
	}
	for i, rs := range receipts {
		for _, r := range rs {
			if !strings.EqualFold(r.BlockHash, hdrs[i].Hash.Hex()) {
				return false, fmt.Errorf("block %d: receipt %s of block %s", hdrs[i].Number, r.TxHash, r.BlockHash)
			}
		}
	}
	if err := ix.store.apply(hdrs, receipts); err != nil {
		return false, err
	}
	ix.log.Debug("indexed blocks", "from", hdrs[0].Number, "to", hdrs[len(hdrs)-1].Number)
	return complete && to == head, nil
}

// reorg handles a stored block at height from that is no longer canonical: it finds the
// highest block both agree on and rolls back to it; the next steps index the new branch.
func (ix *Indexer) reorg(ctx context.Context, from uint64) error {
	tip, _, _ := ix.store.tip()
	h := from
	for h > ix.store.base {
		lo := max(ix.store.base, h-min(h, 64))
		hdrs, err := ix.src.Headers(ctx, lo, h-1)
		if err != nil {
			return fmt.Errorf("reorg at %d: headers %d..%d: %w", from, lo, h-1, err)
		}
		for i := len(hdrs) - 1; i >= 0; i-- {
			if stored, ok := ix.store.hashAt(hdrs[i].Number); ok && stored == hdrs[i].Hash {
				n := ix.store.rollback(hdrs[i].Number, false)
				ix.log.Info("chain reorganised; rolled back", "tip", tip, "ancestor", hdrs[i].Number, "txs", n)
				return nil
			}
		}
		h = lo
	}
	n := ix.store.rollback(0, true)
	ix.log.Info("chain replaced from its first indexed block; index reset", "tip", tip, "txs", n)
	return nil
}
