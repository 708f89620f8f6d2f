package ethrpc

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// Polled filters and subscriptions, as go-ethereum's filter API has them: a filter remembers
// the last height it reported and answers what the index gained since; one left unpolled for
// filterTimeout is dropped (geth's and minievm's five minutes).

const filterTimeout = 5 * time.Minute

type filter struct {
	blocks   bool             // a block filter
	pending  chan common.Hash // a pending-tx filter's hashes (else logs)
	stop     func()           // ends a pending-tx filter's feed
	crit     filterQuery
	next     uint64 // the first height not yet reported
	lastPoll time.Time
}

func (f *filter) end() {
	if f.stop != nil {
		f.stop()
	}
}

type filters struct {
	mu   sync.Mutex
	byID map[rpc.ID]*filter
}

func (e *ethAPI) install(f *filter) rpc.ID {
	e.filters.mu.Lock()
	defer e.filters.mu.Unlock()
	if e.filters.byID == nil {
		e.filters.byID = map[rpc.ID]*filter{}
	}
	now := time.Now()
	for id, old := range e.filters.byID {
		if now.Sub(old.lastPoll) > filterTimeout {
			old.end()
			delete(e.filters.byID, id)
		}
	}
	f.next, f.lastPoll = e.x.Latest()+1, now
	id := rpc.NewID()
	e.filters.byID[id] = f
	return id
}

func (e *ethAPI) NewBlockFilter() rpc.ID { return e.install(&filter{blocks: true}) }

// NewPendingTransactionFilter is a filter of the txs the mempool takes through this server.
func (e *ethAPI) NewPendingTransactionFilter() rpc.ID {
	f := &filter{pending: make(chan common.Hash, 1024)}
	txs := make(chan *types.Transaction, 64)
	f.stop = e.feeds.add(txs)
	go func() {
		for tx := range txs {
			select {
			case f.pending <- tx.Hash():
			default:
			}
		}
	}()
	return e.install(f)
}

func (e *ethAPI) NewFilter(crit filterQuery) (rpc.ID, error) {
	if _, err := crit.addresses(); err != nil {
		return "", err
	}
	return e.install(&filter{crit: crit}), nil
}

func (e *ethAPI) UninstallFilter(id rpc.ID) bool {
	e.filters.mu.Lock()
	defer e.filters.mu.Unlock()
	f, ok := e.filters.byID[id]
	if ok {
		f.end()
	}
	delete(e.filters.byID, id)
	return ok
}

var errFilterNotFound = errors.New("filter not found")

func (e *ethAPI) GetFilterChanges(id rpc.ID) (any, error) {
	e.filters.mu.Lock()
	f, ok := e.filters.byID[id]
	if !ok {
		e.filters.mu.Unlock()
		return nil, errFilterNotFound
	}
	from, to := f.next, e.x.Latest()
	f.next, f.lastPoll = to+1, time.Now()
	e.filters.mu.Unlock()
	if f.pending != nil {
		hashes := []common.Hash{}
		for {
			select {
			case h := <-f.pending:
				hashes = append(hashes, h)
			default:
				return hashes, nil
			}
		}
	}
	if f.blocks {
		hashes := []common.Hash{}
		for h := from; h <= to; h++ {
			if header := e.x.Header(h); header != nil {
				hashes = append(hashes, header.Hash())
			}
		}
		return hashes, nil
	}
	return e.logsIn(f.crit, from, to)
}

func (e *ethAPI) GetFilterLogs(id rpc.ID) ([]rpcLog, error) {
	e.filters.mu.Lock()
	f, ok := e.filters.byID[id]
	e.filters.mu.Unlock()
	if !ok || f.blocks || f.pending != nil {
		return nil, errFilterNotFound
	}
	return e.GetLogs(f.crit)
}

// NewHeads is eth_subscribe("newHeads"): each new block's header.
func (e *ethAPI) NewHeads(ctx context.Context) (*rpc.Subscription, error) {
	return e.subscribe(ctx, func(n *rpc.Notifier, sub *rpc.Subscription, h *types.Header) error {
		return n.Notify(sub.ID, h)
	})
}

// Logs is eth_subscribe("logs", crit): each new block's logs that match.
func (e *ethAPI) Logs(ctx context.Context, crit filterQuery) (*rpc.Subscription, error) {
	if _, err := crit.addresses(); err != nil {
		return nil, err
	}
	return e.subscribe(ctx, func(n *rpc.Notifier, sub *rpc.Subscription, h *types.Header) error {
		logs, err := e.logsIn(crit, h.Number.Uint64(), h.Number.Uint64())
		if err != nil {
			return err
		}
		for _, l := range logs {
			if err := n.Notify(sub.ID, l); err != nil {
				return err
			}
		}
		return nil
	})
}

func (e *ethAPI) subscribe(ctx context.Context, send func(*rpc.Notifier, *rpc.Subscription, *types.Header) error) (*rpc.Subscription, error) {
	n, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := n.CreateSubscription()
	heads := make(chan *types.Header, 64)
	stop := e.x.SubscribeHeads(heads)
	go func() {
		defer stop()
		for {
			select {
			case h := <-heads:
				if send(n, sub, h) != nil {
					return
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// NewPendingTransactions is eth_subscribe("newPendingTransactions"[, full]): each tx the
// mempool takes through this server, as its hash (or the whole tx).
func (e *ethAPI) NewPendingTransactions(ctx context.Context, full *bool) (*rpc.Subscription, error) {
	n, ok := rpc.NotifierFromContext(ctx)
	if !ok {
		return nil, rpc.ErrNotificationsUnsupported
	}
	sub := n.CreateSubscription()
	txs := make(chan *types.Transaction, 64)
	stop := e.feeds.add(txs)
	go func() {
		defer stop()
		for {
			select {
			case tx := <-txs:
				var msg any = tx.Hash()
				if full != nil && *full {
					msg = tx
				}
				if n.Notify(sub.ID, msg) != nil {
					return
				}
			case <-sub.Err():
				return
			}
		}
	}()
	return sub, nil
}

// feeds are the subscribers of txs taken into the mempool.
type feeds struct {
	mu      sync.Mutex
	pending []chan *types.Transaction
}

// add feeds ch until the returned func ends it (and closes ch).
func (f *feeds) add(ch chan *types.Transaction) func() {
	f.mu.Lock()
	f.pending = append(f.pending, ch)
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, c := range f.pending {
			if c == ch {
				f.pending = append(f.pending[:i], f.pending[i+1:]...)
				close(ch)
				return
			}
		}
	}
}

func (f *feeds) sent(tx *types.Transaction) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.pending {
		select {
		case c <- tx:
		default:
		}
	}
}
