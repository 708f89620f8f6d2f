package indexer

import (
	"fmt"
	"log/slog"
	"net"
	"time"
)

type config struct {
	poll    time.Duration
	log     *slog.Logger
	noEVM   bool
	addr    string
	lenient bool
	batch   uint64
	chainID string // what /status names (WithChainID)
}

func defaultConfig() config {
	return config{
		poll:  100 * time.Millisecond,
		log:   slog.New(slog.DiscardHandler),
		addr:  "127.0.0.1:0",
		batch: 256,
	}
}

// Option configures New and NewFromSource.
type Option func(*config)

// WithPollInterval sets how often the indexer asks the chain for new blocks once it has
// caught up (default 100ms). While behind, it fetches without pause.
func WithPollInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.poll = d
		}
	}
}

// WithLogger sets the logger (blocks indexed at debug, reorgs at info, retries at warn).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// WithNoEVM serves as a chain without EVM does: every evm-txs route answers 404 with a
// plain-text body. Nothing is followed, so New needs no JSON-RPC URL.
func WithNoEVM() Option { return func(c *config) { c.noEVM = true } }

// WithAddr sets the listen address; it must be a loopback host (default 127.0.0.1:0).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithLenientQuery parses query parameters as the real service does: a limit, offset or
// boolean that does not parse silently becomes its default, and a JSON key without an
// integer sequence falls back to offset paging. By default such parameters are a 400.
func WithLenientQuery() Option { return func(c *config) { c.lenient = true } }

// WithBatchBlocks sets how many blocks one catch-up step fetches (default 256).
func WithBatchBlocks(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.batch = uint64(n)
		}
	}
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("indexer: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("indexer: listen address %q is not a loopback address", addr)
	}
	return nil
}
