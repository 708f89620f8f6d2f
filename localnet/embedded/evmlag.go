package embedded

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// A minievm serves receipts and eth_blockNumber from its EVM indexer, which it feeds before
// the block's state commits: a read of the state at "latest" right after a receipt can
// still see the state before the tx (measured on v1.2.18: 4 of 15 reads made as soon as the
// receipt showed, for 5 to 14 ms). WithReadLag reproduces that on purpose, so that clients
// learn to wait for the state a receipt promises instead of trusting the first read: the
// state reads at "latest" (eth_call, eth_estimateGas, eth_getBalance, eth_getCode,
// eth_getStorageAt, eth_getTransactionCount) answer from the newest block sealed at least
// the lag ago. Blocks, receipts, logs, reads at a block number and the "pending" nonce are
// as sealed.

// ReadLagEnv names the environment variable the engine reads a read lag from (a Go
// duration, e.g. 20ms) when no WithReadLag option is given: the e2e suites set it, so that
// every client they drive meets the lag of a real minievm.
const ReadLagEnv = "VIPHARNESS_EVM_READ_LAG"

// WithReadLag sets the read lag (default 0, or ReadLagEnv).
func WithReadLag(d time.Duration) EVMOption { return func(c *evmConfig) { c.readLag = &d } }

// readLagFromEnv is ReadLagEnv's duration, or 0.
func readLagFromEnv() time.Duration {
	d, err := time.ParseDuration(os.Getenv(ReadLagEnv))
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// lagClock remembers when the newest blocks were sealed.
type lagClock struct {
	lag    time.Duration
	mu     sync.Mutex
	recent []sealedAt // the blocks sealed within the lag, oldest first
}

type sealedAt struct {
	number uint64
	at     time.Time
}

// mark records block n as sealed now.
func (c *lagClock) mark(n uint64) {
	if c == nil || c.lag <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	keep := c.recent[:0]
	for _, b := range c.recent {
		if now.Sub(b.at) < c.lag {
			keep = append(keep, b)
		}
	}
	c.recent = append(keep, sealedAt{n, now})
}

// committed is the newest block whose state reads at "latest" see: the newest sealed at
// least the lag ago; ok is false when that is the head itself.
func (c *lagClock) committed() (n uint64, ok bool) {
	if c == nil || c.lag <= 0 {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	for _, b := range c.recent {
		if now.Sub(b.at) < c.lag {
			if b.number == 0 {
				return 0, false
			}
			return b.number - 1, true
		}
	}
	return 0, false
}

// stateBlock is the block argument a state read is answered at: "latest" (or none) is the
// newest block whose state has "committed" (lagClock) while the head's lags, otherwise the
// argument as given.
func (a *minievmAPI) stateBlock(block *json.RawMessage) *json.RawMessage {
	n, lagging := a.lag.committed()
	if !lagging {
		return block
	}
	if block != nil {
		var tag string
		if json.Unmarshal(*block, &tag) != nil || tag != "latest" {
			return block
		}
	}
	return raw(hexutil.Uint64(n))
}

// forward calls method on geth in process with params, a trailing nil ending them.
func (a *minievmAPI) forward(ctx context.Context, method string, params ...*json.RawMessage) (json.RawMessage, error) {
	args := make([]any, 0, len(params))
	for _, p := range params {
		if p == nil {
			break
		}
		args = append(args, *p)
	}
	var out json.RawMessage
	if err := a.geth.CallContext(ctx, &out, method, args...); err != nil {
		return nil, passError(err)
	}
	return out, nil
}

func raw(v any) *json.RawMessage {
	b, _ := json.Marshal(v)
	r := json.RawMessage(b)
	return &r
}

// GetBalance is geth's, at the lagged state (stateBlock), for a block the chain has
// (stateAt).
func (a *minievmAPI) GetBalance(ctx context.Context, addr common.Address, block *json.RawMessage) (json.RawMessage, error) {
	if err := a.stateAt(block); err != nil {
		return nil, err
	}
	return a.forward(ctx, "eth_getBalance", raw(addr), a.latest(block))
}

// GetCode is geth's, at the lagged state, for a block the chain has.
func (a *minievmAPI) GetCode(ctx context.Context, addr common.Address, block *json.RawMessage) (json.RawMessage, error) {
	if err := a.stateAt(block); err != nil {
		return nil, err
	}
	return a.forward(ctx, "eth_getCode", raw(addr), a.latest(block))
}

// GetStorageAt is geth's, at the lagged state, for a block the chain has.
func (a *minievmAPI) GetStorageAt(ctx context.Context, addr common.Address, slot json.RawMessage, block *json.RawMessage) (json.RawMessage, error) {
	if err := a.stateAt(block); err != nil {
		return nil, err
	}
	return a.forward(ctx, "eth_getStorageAt", raw(addr), &slot, a.latest(block))
}

// GetTransactionCount is geth's, at the lagged state ("pending" is the pool's, as ever), for
// a block the chain has.
func (a *minievmAPI) GetTransactionCount(ctx context.Context, addr common.Address, block *json.RawMessage) (json.RawMessage, error) {
	if err := a.stateAt(block); err != nil {
		return nil, err
	}
	return a.forward(ctx, "eth_getTransactionCount", raw(addr), a.latest(block))
}

// latest is stateBlock with an absent block made "latest" (geth requires the argument for
// these reads; a client that leaves it out gets geth's own answer).
func (a *minievmAPI) latest(block *json.RawMessage) *json.RawMessage {
	if block == nil {
		return nil
	}
	return a.stateBlock(block)
}
