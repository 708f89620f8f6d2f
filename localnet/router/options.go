package router

import (
	"fmt"
	"log/slog"
	"net"
	"time"
)

type chainLink struct {
	chainID string
	rpcURL  string
	source  TxSource
}

type config struct {
	addr         string
	graph        *Graph
	graphErr     error
	links        []chainLink
	accountLinks map[string]string
	seed         uint64
	step         time.Duration
	abandonAfter time.Duration
	now          func() time.Time
	log          *slog.Logger
	faults       Faults
}

func defaultConfig() config {
	return config{
		addr:         "127.0.0.1:0",
		seed:         1,
		step:         time.Second,
		abandonAfter: 10 * time.Minute,
		now:          time.Now,
		log:          slog.New(slog.DiscardHandler),
	}
}

// Option configures Start.
type Option func(*config)

// WithAddr sets the listen address; it must be a loopback host (default 127.0.0.1:0).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithGraph routes over g instead of fixtures/router/graph.json.
func WithGraph(g *Graph) Option {
	return func(c *config) {
		if g == nil {
			c.graphErr = fmt.Errorf("router: nil graph")
			return
		}
		c.graph, c.graphErr = g, g.Validate()
	}
}

// WithGraphFile routes over the graph in a JSON file.
func WithGraphFile(path string) Option {
	return func(c *config) { c.graph, c.graphErr = LoadGraphFile(path) }
}

// WithChain links a graph chain to a local EVM node's JSON-RPC: track then checks there that
// a transaction exists and succeeded, and reads the route it carries. Start checks that
// the node's eth_chainId is the chain id (when the id is a number).
func WithChain(chainID, rpcURL string) Option {
	return func(c *config) { c.links = append(c.links, chainLink{chainID: chainID, rpcURL: rpcURL}) }
}

// WithTxSource links a graph chain to any source of transactions (a fake chain, a Cosmos
// node adapter).
func WithTxSource(chainID string, src TxSource) Option {
	return func(c *config) { c.links = append(c.links, chainLink{chainID: chainID, source: src}) }
}

// WithSeed makes hop timings and injected errors a function of seed (default 1): the same
// seed and the same requests give the same answers.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithStepInterval sets the time one step of a transfer takes (default 1s). A transfer
// is observed one step after track and each hop takes one to three steps.
func WithStepInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.step = d
		}
	}
}

// WithClock sets the clock transfers move by (default time.Now), so tests can step time.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithAbandonAfter sets how long a stalled hop waits before the transfer is abandoned
// (STATE_ABANDONED; default 10 minutes, as the real service; 0 never abandons).
func WithAbandonAfter(d time.Duration) Option { return func(c *config) { c.abandonAfter = max(d, 0) } }

// WithLogger sets the logger (requests at debug, transfers at info).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.log = l
		}
	}
}

// WithFaults starts the stand-in with faults already injected.
func WithFaults(f Faults) Option { return func(c *config) { c.faults = f } }

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("router: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("router: listen address %q is not a loopback address", addr)
	}
	return nil
}
