package embedded

import (
	"context"
	"os"

	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"cosmossdk.io/math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/legacypool"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/eth/tracers"
	_ "github.com/ethereum/go-ethereum/eth/tracers/native" // callTracer and prestateTracer, as minievm has them
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/event"
	gethlog "github.com/ethereum/go-ethereum/log"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/version"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/cometrpc"
	"github.com/vipharness/vipharness/localnet/evmrest"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// DefaultEVMBlockGasLimit is the block gas limit of the embedded EVM rollup: 2^40, so that
// no block comes near it (minievm's is 2^64-1, unbounded).
// A tx still carries at most Osaka's per-tx cap (2^24).
const DefaultEVMBlockGasLimit = 1 << 40

// OsakaRules makes a go-ethereum dev/simulated chain run Prague/Osaka gas rules. The dev
// config of go-ethereum 1.17 also schedules Amsterdam and Bogota (EIP-8037/8038 state gas),
// under which a new storage slot costs ~111k gas; rollups do not run those yet.
func OsakaRules(nodeConf *node.Config, ethConf *ethconfig.Config) {
	cfg := *ethConf.Genesis.Config
	cfg.AmsterdamTime = nil
	cfg.BogotaTime = nil
	ethConf.Genesis.Config = &cfg
}

// DefaultEVMCosmosChainID is the Cosmos chain id of the embedded EVM rollup; its EVM chain id
// derives from it as minievm derives it.
const DefaultEVMCosmosChainID = "vip-evm-1"

// EVMFeeDenom is the fee denom of the embedded EVM rollup's Cosmos face; its amounts are wei.
const EVMFeeDenom = "umin"

type evmConfig struct {
	dataDir       string
	cosmosChainID string
	gasLimit      uint64
	funded        []common.Address
	balance       *big.Int
	version       string
	logger        *slog.Logger
	emptyEvery    time.Duration
	readLag       *time.Duration
	bridge        *feeroutes.Bridge
}

// EVMOption configures StartGeth.
type EVMOption func(*evmConfig)

// WithBlockGasLimit sets the block gas limit (default DefaultEVMBlockGasLimit).
func WithBlockGasLimit(limit uint64) EVMOption { return func(c *evmConfig) { c.gasLimit = limit } }

// WithFundedAddresses funds extra accounts at genesis, e.g. an operator recovered from a mnemonic.
func WithFundedAddresses(addrs ...common.Address) EVMOption {
	return func(c *evmConfig) { c.funded = append(c.funded, addrs...) }
}

// WithCosmosChainID sets the Cosmos chain id (default DefaultEVMCosmosChainID); the EVM
// chain id derives from it.
func WithCosmosChainID(id string) EVMOption { return func(c *evmConfig) { c.cosmosChainID = id } }

// WithVersion sets the application version that abci_info reports.
func WithVersion(v string) EVMOption { return func(c *evmConfig) { c.version = v } }

// WithEVMBridge registers the rollup under an OPinit bridge of its L1: its Cosmos face
// answers opchild's bridge_info, and names the sequencer's operator bridge executor and admin.
func WithEVMBridge(b feeroutes.Bridge) EVMOption { return func(c *evmConfig) { c.bridge = &b } }

// WithDataDir keeps the chain's database and its dev mnemonic (0600) in dir (kept after
// Stop) instead of a temporary folder that Stop removes; a dir that holds a chain resumes it
// (the same genesis, dev account and state).
func WithDataDir(dir string) EVMOption { return func(c *evmConfig) { c.dataDir = dir } }

// WithEmptyBlockInterval sets how often an idle chain makes an empty block (default
// EVMEmptyBlockInterval, minievm's create_empty_blocks_interval).
func WithEmptyBlockInterval(d time.Duration) EVMOption {
	return func(c *evmConfig) { c.emptyEvery = max(d, EVMBlockInterval) }
}

// WithLogger sets the logger for chain events (blocks sealed).
func WithLogger(l *slog.Logger) EVMOption { return func(c *evmConfig) { c.logger = l } }

// GethRollup is an in-process EVM rollup: go-ethereum's node and eth service on a database
// of its own, with Osaka gas rules, served as JSON-RPC on 127.0.0.1 (jsonrpcServer) and
// sealing a block whenever transactions arrive (sealer), so clients talk to it exactly as
// to a real rollup.
type GethRollup struct {
	stack         *node.Node
	eth           *eth.Ethereum
	sealer        *sealer
	minievm       *minievmAPI
	jsonrpc       *jsonrpcServer
	client        *ethclient.Client
	chainID       *big.Int
	devKey        *ecdsa.PrivateKey
	devMnemonic   string
	comet         *cometrpc.Server
	rest          *evmrest.Server
	cosmosChainID string
	logger        *slog.Logger
	tempDir       string // the database's folder when Stop removes it
	resumed       bool   // the chain WithDataDir kept

	commitMu sync.Mutex     // the sealer and the pool's Sync are not safe for concurrent use
	sealing  sync.WaitGroup // the seal in flight, if any
	stopOnce sync.Once
	stopped  chan struct{}
	done     chan struct{}
}

var _ localnet.Rollup = (*GethRollup)(nil)

// StartGeth starts the EVM rollup on go-ethereum's simulated chain (the embedded-geth
// engine) with one funded dev account.
func StartGeth(ctx context.Context, opts ...EVMOption) (*GethRollup, error) {
	cfg := evmConfig{
		cosmosChainID: DefaultEVMCosmosChainID,
		gasLimit:      DefaultEVMBlockGasLimit,
		balance:       new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(params.Ether)),
		version:       fmt.Sprintf("v0.0.0-dev+go-ethereum.v%d.%d.%d", version.Major, version.Minor, version.Patch),
		logger:        slog.New(slog.DiscardHandler),
		emptyEvery:    EVMEmptyBlockInterval,
	}
	for _, o := range opts {
		o(&cfg)
	}
	// The dev account derives from a fresh mnemonic on the EVM path, so the env file can hold
	// it as MNEMONIC and the Ledger stand-in (--mnemonic-from-env) signs for the funded account;
	// a data dir keeps it, so the genesis (and so the chain in it) is the same next start.
	mnemonic, resumed, err := devMnemonic(cfg.dataDir)
	if err != nil {
		return nil, err
	}
	dev, err := keys.FromMnemonic(mnemonic, keys.EVMPath(0))
	if err != nil {
		return nil, fmt.Errorf("derive dev key: %w", err)
	}
	devKey := dev.PrivateKey()
	alloc := core.SystemContractAllocs()
	alloc[dev.Address()] = types.Account{Balance: cfg.balance}
	for _, a := range cfg.funded {
		alloc[a] = types.Account{Balance: cfg.balance}
	}

	// The chain's database is on disk (pebble), not in memory, with small caches: the
	// database is local and the chain is small (held in memory with a mainnet node's trie
	// caches it cost the process 7.3 KB an address at 100,000).
	dataDir, tempDir := cfg.dataDir, ""
	if dataDir == "" {
		if tempDir, err = os.MkdirTemp("", "vipharness-evm-"); err != nil {
			return nil, fmt.Errorf("create the evm chain's database folder: %w", err)
		}
		dataDir = tempDir
	}
	cleanup := func() {
		if tempDir != "" {
			_ = os.RemoveAll(tempDir)
		}
	}
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = dataDir
	nodeConf.IPCPath = ""
	nodeConf.P2P = p2p.Config{NoDiscovery: true}
	// JSON-RPC is served by the rollup's own server (jsonrpcServer), not the node's.
	nodeConf.Logger = gethlog.NewLogger(slog.DiscardHandler)

	ethConf := ethconfig.Defaults
	ethConf.Genesis = &core.Genesis{Config: params.AllDevChainProtocolChanges, GasLimit: cfg.gasLimit, Alloc: alloc,
		BaseFee: big.NewInt(EVMBaseFee)}
	ethConf.Miner.GasCeil = cfg.gasLimit
	ethConf.SyncMode = ethconfig.FullSync
	// Every block's state stays readable (eth_call at earliest, a stage's first block): an
	// archive of the hash-scheme trie, written to disk when the chain is idle or its sealed
	// blocks hold 32 MB of trie nodes (sealer.flush), so what the process holds grows slowly
	// (at 1,000,000 addresses, with the indexer stand-in beside it: 1.15 KB an address of
	// peak RSS, 1.0 KB on disk). The path
	// scheme, which keeps one trie and prunes the rest as geth's full nodes (and anvil
	// --prune-history) do, held the newest 128 blocks' changes in memory: 2.5 KB of heap for
	// each address written in them, 1.8 GB of RSS at 300,000 addresses; geth neither lets
	// that window shrink nor flushes it without failing the readers of the states it held.
	ethConf.NoPruning = true
	ethConf.StateScheme = rawdb.HashScheme
	// The database's cache is 128 MB, so each of pebble's two memtables holds 32 MB (a
	// quarter of it): with 8 MB, a 20,000-address push flushed several and compacted them
	// while it ran, ~17% of the chain's CPU for it (BenchmarkBesideAnvil, one run beside 32).
	// Trie nodes have their own clean cache; no dirty cache (every block is flushed) and no
	// snapshot (the archive answers every read).
	ethConf.DatabaseCache, ethConf.TrieCleanCache, ethConf.TrieDirtyCache, ethConf.SnapshotCache = 128, 32, 0, 0
	// eth_getLogs as minievm serves it (jsonrpc/namespaces/eth/filters): a scan of the range's
	// blocks through each header's bloom, without geth's log index, whose upkeep was an eighth
	// of the chain's CPU under a push (every log's address and topics into filter maps).
	ethConf.LogNoHistory = true
	// The prefetcher runs a block's txs a second time on other cores, to warm caches for the
	// import; here every block was just built from the same state, so it only doubled the EVM
	// work (7% of the chain's CPU under a push).
	ethConf.NoPrefetch = true
	ethConf.TxPool.NoLocals = true
	ethConf.TxPool = pipelinedPool(ethConf.TxPool)
	OsakaRules(&nodeConf, &ethConf)
	chainCfg := *ethConf.Genesis.Config
	chainCfg.ChainID = new(big.Int).SetUint64(probe.DeriveEVMChainID(cfg.cosmosChainID))
	ethConf.Genesis.Config = &chainCfg
	ethConf.NetworkId = chainCfg.ChainID.Uint64()

	stack, err := node.New(&nodeConf)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("create evm node: %w", err)
	}
	// Every failure from here on closes the node, then removes its folder.
	closeNode := func() { stack.Close(); cleanup() }
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		closeNode()
		return nil, fmt.Errorf("create eth service: %w", err)
	}
	// A tip buys nothing (see EVMMinGasPrice): the miner and the pool take any tip from 0.
	backend.TxPool().SetGasTip(new(big.Int))
	if err := backend.Miner().SetGasTip(new(big.Int)); err != nil {
		closeNode()
		return nil, fmt.Errorf("set the miner's minimum tip: %w", err)
	}
	sealed := newSealedReceipts()
	// geth's own eth namespace, in process, for the methods the minievm face checks first and
	// then hands to geth.
	gethRPC := rpc.NewServer()
	if err := node.RegisterApis(append(backend.APIs(), tracers.APIs(backend.APIBackend)...), []string{"eth", "debug"}, gethRPC); err != nil {
		closeNode()
		return nil, fmt.Errorf("register geth's eth namespace: %w", err)
	}
	gethClient := rpc.DialInProc(gethRPC)
	closeGeth := func() { gethClient.Close(); gethRPC.Stop() }
	closeStack := closeNode
	closeNode = func() { closeGeth(); closeStack() }
	lag := &lagClock{lag: readLagFromEnv()}
	if cfg.readLag != nil {
		lag.lag = *cfg.readLag
	}
	minievm, err := newMinievmAPI(backend, gethClient, big.NewInt(EVMMinGasPrice), sealed)
	if err != nil {
		closeNode()
		return nil, err
	}
	minievm.lag = lag
	// Log filters with minievm's limits (jsonrpc/config: 5 min filter timeout, 100 addresses);
	// registered after the eth service, so these replace its own. Its 1,000,000-block range
	// is not set: geth counts a query up to "latest" as 2^64-1 blocks and would refuse them all.
	filterSys := filters.NewFilterSystem(backend.APIBackend, filters.Config{Timeout: 5 * time.Minute, LogQueryLimit: 100})
	filterAPI := filters.NewFilterAPI(filterSys)
	minievm.filters, minievm.events = filterAPI, filters.NewEventSystem(filterSys)
	extra := []rpc.API{
		{Namespace: "eth", Service: filterAPI},
		{Namespace: "eth", Service: minievm},
		{Namespace: "eth", Service: notMinievmEth{}},
		{Namespace: "debug", Service: minievmDebug{geth: gethClient}},
		// minievm's web3_clientVersion is its CometBFT node's version.
		{Namespace: "web3", Service: &web3API{clientVersion: cometrpc.NodeVersion}},
		{Namespace: "net", Service: netAPI{}},
	}
	stack.RegisterAPIs(extra)
	if err := stack.Start(); err != nil {
		closeNode()
		return nil, fmt.Errorf("start evm node: %w", err)
	}
	backend.SetSynced() // the chain is its own only node
	// HTTP and WebSocket on ports of their own, as a minievm serves them (8545 and 8546);
	// eth_subscribe newHeads, logs and newPendingTransactions.
	// geth's own debug namespace is not served: minievm's (minievmDebug) is.
	var served []rpc.API
	for _, api := range backend.APIs() {
		if api.Namespace != "debug" {
			served = append(served, api)
		}
	}
	jsonrpc, err := startJSONRPC(append(served, extra...), []string{"eth", "net", "web3", "txpool", "debug"})
	if err != nil {
		closeNode()
		return nil, err
	}
	closeNode = func() { _ = jsonrpc.Close(); closeGeth(); stack.Close(); cleanup() }
	sealer, err := newSealer(backend.BlockChain(), backend.ChainDb(), backend.TxPool(), cfg.gasLimit, sealed)
	if err != nil {
		closeNode()
		return nil, err
	}
	sealer.lag = lag
	// A minievm's chain starts at height 1, a block made at start; geth's genesis (block 0)
	// is never a minievm's block (eth_getBlockByNumber answers 0 with block 1).
	if backend.BlockChain().CurrentBlock().Number.Sign() == 0 {
		if _, err := sealer.seal(ctx, sealer.now(), true); err != nil {
			closeNode()
			return nil, fmt.Errorf("seal block 1: %w", err)
		}
	}
	r := &GethRollup{
		stack:       stack,
		eth:         backend,
		sealer:      sealer,
		minievm:     minievm,
		jsonrpc:     jsonrpc,
		client:      ethclient.NewClient(stack.Attach()),
		chainID:     ethConf.Genesis.Config.ChainID,
		devKey:      devKey,
		devMnemonic: mnemonic,
		resumed:     resumed,
		logger:      cfg.logger,
		tempDir:     tempDir,
		stopped:     make(chan struct{}),
		done:        make(chan struct{}),
	}
	// The faces a minievm shows beside JSON-RPC: abci_info names "minitia" and the network is
	// the Cosmos chain id; REST names minievm (the EVM underneath is plain go-ethereum).
	// abci_query is the REST face's queries (started next: it names this server's URL).
	var rest atomic.Pointer[evmrest.Server]
	query := func(ctx context.Context, path string, data []byte) ([]byte, error) {
		s := rest.Load()
		if s == nil {
			return nil, errors.New("the rollup's Cosmos face is starting")
		}
		return s.Query(ctx, path, data)
	}
	seq := sequencer(devKey)
	r.comet, err = cometrpc.Start(cometrpc.Info{App: "minitia", Version: cfg.version, Network: cfg.cosmosChainID, Moniker: minitia.Moniker,
		Head: r.head, Query: query, Validator: seq.ConsensusPubkey.Key, Unconfirmed: poolTxs(backend.TxPool())})
	if err != nil {
		closeNode()
		return nil, err
	}
	supply, err := newSupplyCounter(backend.BlockChain(), backend.ChainDb())
	if err != nil {
		_ = r.comet.Close()
		closeNode()
		return nil, err
	}
	r.rest, err = evmrest.Start(evmrest.Info{ChainID: cfg.cosmosChainID, Version: cfg.version, FeeDenom: EVMFeeDenom,
		MinGasPrice: math.LegacyNewDec(EVMMinGasPrice), CometRPC: r.comet.URL(), Sequencer: seq,
		Supply: supply.Supply, Bridge: cfg.bridge}, r.client)
	if err != nil {
		_ = r.comet.Close()
		closeNode()
		return nil, err
	}
	rest.Store(r.rest)
	r.cosmosChainID = cfg.cosmosChainID
	txs := make(chan core.NewTxsEvent, 256)
	sub := backend.TxPool().SubscribeTransactions(txs, false)
	go r.autoMine(sub, txs, cfg.emptyEvery)
	return r, nil
}

// pipelinedPool sizes geth's pool for one sender with thousands of txs in flight, as a
// rollup's Cosmos mempool takes them. With geth's defaults a sealed block can strand such a
// sender: the pool's reset re-reads its nonce from state, promotes nothing from the queue
// (the txs in between are still pending), then cuts the queue to AccountQueue (64) txs, and
// the dropped nonce is a gap no later block fills. A queue as large as the pool itself is
// never cut while the pool has room.
func pipelinedPool(c legacypool.Config) legacypool.Config {
	const slots = 1 << 16
	c.AccountSlots, c.GlobalSlots = slots, slots
	c.AccountQueue, c.GlobalQueue = slots, slots
	return c
}

// The block production of a minievm in its default configuration ([sequencing] in
// config.toml): a block comes within block_interval of a tx; a block with txs is followed by
// one more block block_interval later (CometBFT's proof block for the new app hash), empty
// when no tx came meanwhile; an idle chain makes an empty block every
// create_empty_blocks_interval. Hardhat Ignition's and ethers' confirmations come on those.
const (
	// EVMBlockInterval is minievm's default block_interval.
	EVMBlockInterval = 100 * time.Millisecond
	// EVMEmptyBlockInterval is minievm's default create_empty_blocks_interval.
	EVMEmptyBlockInterval = time.Minute
	// EVMConsensusDelay is how long a minievm's single node takes from a tx's arrival at an
	// idle node to the block that carries it, as its receipt shows (measured on v1.2.18:
	// ~25 ms after eth_sendRawTransaction answered; up to ~150 ms when a block had just
	// come, which EVMBlockInterval gives). A receipt is never there at the first read after
	// the send, which clients that read it once (Hardhat's chai matchers) meet.
	EVMConsensusDelay = 20 * time.Millisecond
)

// autoMine makes the chain's blocks as a minievm makes them (EVMBlockInterval): it seals
// while the pool holds executable transactions, then one block more after EVMBlockInterval,
// and an empty block whenever the chain was idle for the empty-block interval.
// Notifications are coalesced into a one-slot signal by a reader that never blocks, because
// sealing waits on the pool and the pool's event feed blocks when its subscriber stops
// reading: a sealer that read the feed itself would deadlock under sustained pipelined
// sends. The loop watches for Stop before, between and during seals; a seal runs on its own
// goroutine, which Stop waits for within a bound (sealing).
func (r *GethRollup) autoMine(sub event.Subscription, txs <-chan core.NewTxsEvent, emptyEvery time.Duration) {
	defer close(r.done)
	defer sub.Unsubscribe()
	signal := make(chan struct{}, 1)
	go func() {
		for {
			select {
			case <-r.stopped:
				return
			case <-sub.Err():
				return
			case <-txs:
				select {
				case signal <- struct{}{}:
				default: // a seal is already due
				}
			}
		}
	}()
	idle := time.NewTimer(emptyEvery)
	defer idle.Stop()
	var proof <-chan time.Time // the block after a block with txs, due EVMBlockInterval after it
	var lastBlock time.Time
	for {
		select {
		case <-r.stopped:
			return
		case <-signal:
		case <-proof:
			proof = nil
			if _, stopped := r.runSeal(true); stopped {
				return
			}
			lastBlock = time.Now()
			idle.Reset(emptyEvery)
			continue
		case <-idle.C:
			if _, stopped := r.runSeal(true); stopped {
				return
			}
			lastBlock = time.Now()
			idle.Reset(emptyEvery)
			continue
		}
		// The block comes as a minievm's would: EVMConsensusDelay after the tx, and not
		// before EVMBlockInterval after the last block (a block with txs due then takes the
		// place of the proof block). Meanwhile a burst of pipelined sends arrives; then seal
		// back to back while a block leaves some of what the pool held (a burst larger than a
		// block): every tx the pool takes is minable (EVMMinGasPrice), so a sealed block that
		// takes none means something no block will take; stop there and wait for the next tx.
		wait := EVMConsensusDelay
		if d := time.Until(lastBlock.Add(EVMBlockInterval)); d > wait {
			wait = d
		}
		select {
		case <-r.stopped:
			return
		case <-time.After(wait):
		}
		for {
			s, stopped := r.runSeal(false)
			if stopped || s.err != nil {
				return // stopped, or the pool is closed: the chain is stopping
			}
			if s.took > 0 {
				lastBlock = time.Now()
				proof = time.After(EVMBlockInterval)
				idle.Reset(emptyEvery)
			}
			if s.pending <= s.took {
				break // all it held: a tx that came meanwhile waits for its own signal
			}
			if s.took == 0 {
				r.logger.Warn("the pool holds executable txs that no block takes; sealing paused until the next tx")
				break
			}
		}
	}
}

// runSeal seals on a goroutine of its own (sealPending) and waits for it, or for Stop.
func (r *GethRollup) runSeal(empty bool) (s sealResult, stopped bool) {
	r.sealing.Add(1)
	res := make(chan sealResult, 1)
	go func() {
		defer r.sealing.Done()
		took, pending, err := r.sealPending(empty)
		res <- sealResult{took, pending, err}
	}()
	select {
	case <-r.stopped:
		return sealResult{}, true
	case s = <-res:
		return s, false
	}
}

type sealResult struct {
	took, pending int
	err           error
}

// sealPending seals a block if the pool holds executable txs (or, with empty, in any case),
// and reports how many txs the block took and how many the pool held. The pool catches up
// with the last sealed block first, or it still counts (and offers) the txs that block took.
// geth's TxPool.Sync answers one waiter at a time (a second caller replaces the first, which
// then waits for ever), so every Sync runs under commitMu.
func (r *GethRollup) sealPending(empty bool) (took, pending int, err error) {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	if err := r.eth.TxPool().Sync(); err != nil {
		return 0, 0, fmt.Errorf("sync the tx pool: %w", err)
	}
	if pending, _ = r.eth.TxPool().Stats(); pending == 0 && !empty {
		// Idle: the sealed blocks' state goes to disk now, off the sender's path.
		if err := r.sealer.flush(); err != nil {
			r.logger.Error("flush sealed state", "err", err)
		}
		return 0, 0, nil
	}
	t0 := time.Now()
	b, err := r.sealer.seal(context.Background(), r.sealer.now(), empty)
	if err != nil {
		r.logger.Error("seal a block", "err", err)
		return 0, pending, nil
	}
	if b == nil {
		return 0, pending, nil
	}
	r.logger.Debug("sealed block", "number", b.NumberU64(), "hash", b.Hash(), "txs", len(b.Transactions()), "took", time.Since(t0))
	return len(b.Transactions()), pending, nil
}

// Commit seals a block with the pending transactions (an empty one when there are none) and
// returns its hash.
func (r *GethRollup) Commit() common.Hash {
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	if err := r.eth.TxPool().Sync(); err != nil {
		r.logger.Error("sync the tx pool", "err", err)
	}
	if _, err := r.sealer.seal(context.Background(), r.sealer.now(), true); err != nil {
		r.logger.Error("seal a block", "err", err)
	}
	return r.eth.BlockChain().CurrentBlock().Hash()
}

func (r *GethRollup) head(ctx context.Context) (height uint64, root []byte, err error) {
	h, err := r.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, nil, err
	}
	return h.Number.Uint64(), h.Root.Bytes(), nil
}

// VM reports vip.EVM.
func (r *GethRollup) VM() vip.VM { return vip.EVM }

// ChainID is the EVM chain id in decimal.
func (r *GethRollup) ChainID() string { return r.chainID.String() }

// CosmosChainID is the Cosmos chain id the rollup's CometBFT and REST faces report.
func (r *GethRollup) CosmosChainID() string { return r.cosmosChainID }

// Endpoints returns the JSON-RPC (HTTP and WebSocket), CometBFT RPC and Cosmos REST URLs.
func (r *GethRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{JSONRPC: r.jsonrpc.URL(), JSONRPCWS: r.jsonrpc.WSURL(), CometRPC: r.comet.URL(), REST: r.rest.URL()}
}

// Funded returns the genesis-funded dev account, with the mnemonic it derives from
// (m/44'/60'/0'/0/0).
func (r *GethRollup) Funded() []localnet.Account {
	return []localnet.Account{{
		Address:    crypto.PubkeyToAddress(r.devKey.PublicKey).Hex(),
		PrivateKey: hex.EncodeToString(crypto.FromECDSA(r.devKey)),
		Mnemonic:   r.devMnemonic,
	}}
}

// BlockChain is the chain itself.
func (r *GethRollup) BlockChain() *core.BlockChain { return r.eth.BlockChain() }

// SealedChain is the chain for readers in this process (the indexer stand-in's gethsource)
// that would otherwise ask it over JSON-RPC: the newest blocks' receipts come from memory.
func (r *GethRollup) SealedChain() SealedChain {
	return SealedChain{BlockChain: r.eth.BlockChain(), sealed: r.sealer.sealed}
}

// Client is an in-process client of the chain.
func (r *GethRollup) Client() *ethclient.Client { return r.client }

// AdjustTime seals a block d after the chain's clock (with the txs the pool holds, if any),
// and keeps every later block that far ahead of the wall clock.
func (r *GethRollup) AdjustTime(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("adjust time by %s: the clock only moves forward", d)
	}
	r.commitMu.Lock()
	defer r.commitMu.Unlock()
	if err := r.eth.TxPool().Sync(); err != nil {
		return fmt.Errorf("adjust time: sync the tx pool: %w", err)
	}
	head := r.eth.BlockChain().CurrentBlock()
	at := max(head.Time, r.sealer.now()) + uint64(d/time.Second)
	if _, err := r.sealer.seal(context.Background(), at, true); err != nil {
		return fmt.Errorf("adjust time by %s: %w", d, err)
	}
	// Later blocks keep the lead on the wall clock.
	if wall := uint64(time.Now().Unix()); at > wall {
		r.sealer.ahead = at - wall
	}
	return nil
}

// stopWait bounds how long Stop waits for a seal in flight before it closes the node under it.
const stopWait = 10 * time.Second

// Stop ends the chain and its servers. It never waits for a seal in flight longer than
// stopWait (or ctx): closing the node then ends the seal.
func (r *GethRollup) Stop(ctx context.Context) error {
	var err error
	r.stopOnce.Do(func() {
		close(r.stopped)
		<-r.done // the miner loop watches stopped at every step
		sealed := make(chan struct{})
		go func() { r.sealing.Wait(); close(sealed) }()
		wait := time.NewTimer(stopWait)
		defer wait.Stop()
		select {
		case <-sealed:
			r.commitMu.Lock()
			if ferr := r.sealer.flush(); ferr != nil {
				err = fmt.Errorf("stop the evm chain: %w", ferr)
			}
			r.commitMu.Unlock()
		case <-wait.C:
			err = fmt.Errorf("stop the evm chain: a seal was still running after %s; closed the node under it", stopWait)
		case <-ctx.Done():
			err = fmt.Errorf("stop the evm chain: a seal was still running: %w; closed the node under it", ctx.Err())
		}
		r.client.Close()
		err = errors.Join(err, r.rest.Close(), r.comet.Close(), r.jsonrpc.Close(), r.stack.Close())
		if r.tempDir != "" {
			if rmErr := os.RemoveAll(r.tempDir); rmErr != nil {
				err = errors.Join(err, fmt.Errorf("remove the evm chain's database: %w", rmErr))
			}
		}
	})
	return err
}

// poolTxs counts the txs the pool holds, pending and queued, and their bytes: the chain's
// unconfirmed txs (CometBFT's num_unconfirmed_txs).
func poolTxs(pool *txpool.TxPool) func() (int, int) {
	return func() (n, size int) {
		pending, queued := pool.Content()
		for _, byAccount := range []map[common.Address][]*types.Transaction{pending, queued} {
			for _, txs := range byAccount {
				for _, tx := range txs {
					n, size = n+1, size+int(tx.Size())
				}
			}
		}
		return n, size
	}
}
