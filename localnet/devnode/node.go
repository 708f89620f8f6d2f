// Package devnode is a single-process Cosmos chain for development: accounts and sequences,
// txs (SIGN_MODE_DIRECT, DIRECT_AUX, LEGACY_AMINO_JSON, EIP_191) decoded and verified with the Cosmos SDK (secp256k1 and Initia's
// eth_secp256k1 keys), fees and gas as the SDK's ante handler charges them, events, a tx
// index, and a block per accepted tx, served on loopback as the CometBFT RPC (by CometBFT's
// own JSON-RPC server) and the Cosmos REST gateway routes a deployer uses. A VM plugs in as an
// Executor (the Wasm executor lives in devnode/wasmexec).
//
// Unmodified Cosmos clients work against it: a tx built and signed with the SDK's tx builder is
// broadcast with broadcast_tx_sync or POST /cosmos/tx/v1beta1/txs, found with tx or GET
// /cosmos/tx/v1beta1/txs/{hash}, and its failures carry the SDK's codespaces, codes and logs.
package devnode

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

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"
	"cosmossdk.io/store/dbadapter"
	storetypes "cosmossdk.io/store/types"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/cometbft/cometbft/mempool"
	cmtversionpb "github.com/cometbft/cometbft/proto/tendermint/version"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	cmtversion "github.com/cometbft/cometbft/version"
	dbm "github.com/cosmos/cosmos-db"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// Defaults of a dev node.
const (
	DefaultChainID       = "devnode-1"
	DefaultBech32Prefix  = "init"
	DefaultFeeDenom      = "umin"
	DefaultMinGasPrice   = "0.15"
	DefaultFundedCount   = 2
	DefaultMaxTxBytes    = 1 << 20 // CometBFT mempool max_tx_bytes
	DefaultQueryGasLimit = 3_000_000
	// DefaultAppName is what abci_info's data says: "minitia", as every Initia rollup's does.
	DefaultAppName = "minitia"
	// DefaultBinaryName is node_info's application_version.app_name, as minitiad reports it.
	DefaultBinaryName = "minitiad"
)

// DefaultGenesisBalance is each funded account's balance in the fee denom.
var DefaultGenesisBalance = sdkmath.NewInt(1_000_000_000_000_000)

type config struct {
	chainID       string
	prefix        string
	denom         string
	minGasPrice   string
	balance       sdkmath.Int
	mnemonics     []string
	generate      int
	keyType       keys.KeyType
	alsoKeyType   keys.KeyType // "" none
	maxBlockGas   int64
	maxTxBytes    int
	queryGasLimit uint64
	appName       string
	appVersion    string
	nodeName      string // node_info application_version.name; default "mini" + the executor's module
	binaryName    string // node_info application_version.app_name
	logger        *slog.Logger
	genesisTime   time.Time
	rpcAddr       string // CometBFT RPC listen address; default 127.0.0.1:0
	restAddr      string // REST listen address; default 127.0.0.1:0

	gasPrice sdkmath.LegacyDec
}

// Option configures Start.
type Option func(*config)

// WithChainID sets the chain id (default DefaultChainID).
func WithChainID(id string) Option { return func(c *config) { c.chainID = id } }

// WithBech32Prefix sets the account address prefix (default "init").
func WithBech32Prefix(p string) Option { return func(c *config) { c.prefix = p } }

// WithFeeDenom sets the fee denom that funded accounts hold (default "umin").
func WithFeeDenom(d string) Option { return func(c *config) { c.denom = d } }

// WithMinGasPrice sets the minimum gas price in fee denom units per gas, a decimal such as
// "0.15" (the default); "0" accepts txs without fees.
func WithMinGasPrice(p string) Option { return func(c *config) { c.minGasPrice = p } }

// WithGenesisBalance sets each funded account's balance (default DefaultGenesisBalance).
func WithGenesisBalance(amount sdkmath.Int) Option { return func(c *config) { c.balance = amount } }

// WithFundedMnemonics funds the first account of each mnemonic at genesis, before the
// generated ones.
func WithFundedMnemonics(mnemonics ...string) Option {
	return func(c *config) { c.mnemonics = append(c.mnemonics, mnemonics...) }
}

// WithGeneratedAccounts sets how many accounts with fresh mnemonics are funded (default 2).
func WithGeneratedAccounts(n int) Option { return func(c *config) { c.generate = n } }

// WithKeyType sets the kind of the funded accounts' keys (default Secp256k1, coin type 118).
func WithKeyType(k keys.KeyType) Option { return func(c *config) { c.keyType = k } }

// WithAlsoFundedKeyType funds, beside each mnemonic's first account of the WithKeyType kind,
// its first account of kind k as well. miniwasm's wallets (Initia.js MnemonicKey() with its
// defaults) derive coin type 60 eth_secp256k1 where wasmd tools derive coin type 118: a
// mnemonic of the Wasm dev node then works in both.
func WithAlsoFundedKeyType(k keys.KeyType) Option { return func(c *config) { c.alsoKeyType = k } }

// WithMaxBlockGas sets the block gas limit; a tx asking for more is refused (default: none).
func WithMaxBlockGas(gas int64) Option { return func(c *config) { c.maxBlockGas = gas } }

// WithMaxTxBytes sets the largest tx the node accepts (default 1 MiB).
func WithMaxTxBytes(n int) Option { return func(c *config) { c.maxTxBytes = n } }

// WithQueryGasLimit sets the gas limit of a query (default 3,000,000, wasmd's smart query limit).
func WithQueryGasLimit(gas uint64) Option { return func(c *config) { c.queryGasLimit = gas } }

// WithAppVersion sets the application name and version that abci_info reports.
func WithAppVersion(name, version string) Option {
	return func(c *config) { c.appName, c.appVersion = name, version }
}

// WithApplication sets what node_info's application_version names: the application
// (default "mini" + the executor's module, as minimove and miniwasm report) and the binary
// (default minitiad).
func WithApplication(name, binary string) Option {
	return func(c *config) { c.nodeName, c.binaryName = name, binary }
}

// WithLogger sets the logger (blocks, rejected txs).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithGenesisTime sets the time of block 1 (default: now). Later blocks take the wall clock,
// at least a millisecond after their parent.
func WithGenesisTime(t time.Time) Option { return func(c *config) { c.genesisTime = t } }

// blockRecord is one sealed block and its execution results.
type blockRecord struct {
	block   *cmttypes.Block
	id      cmttypes.BlockID
	results []*abci.ExecTxResult
	appHash []byte // the state after this block
}

// txRecord is an indexed tx.
type txRecord struct {
	height int64
	index  uint32
	tx     cmttypes.Tx
	result *abci.ExecTxResult
}

// Node is a running dev node.
type Node struct {
	cfg      config
	enc      *cosmostx.Encoding
	exec     Executor
	msgTypes map[string]bool
	queries  map[string]Query
	funded   []Account
	also     []Account // the WithAlsoFundedKeyType accounts, in the order of funded
	valKey   ed25519.PrivKey
	valSet   *cmttypes.ValidatorSet
	logger   *slog.Logger

	mu      sync.RWMutex // guards everything below; txs take it exclusively, reads shared
	root    *rootStore
	appHash []byte
	blocks  []*blockRecord // blocks[h-1] is height h
	txs     map[string]*txRecord

	events    *cmttypes.EventBus // blocks and txs for websocket subscribers
	rpc, rest *server
	closeOnce sync.Once
	closeErr  error
}

// Start creates the genesis state (funded accounts), seals block 1 and serves the CometBFT RPC
// and the REST gateway on ephemeral 127.0.0.1 ports (WithListen names others).
func Start(ctx context.Context, exec Executor, opts ...Option) (*Node, error) {
	cfg := config{
		chainID:       DefaultChainID,
		prefix:        DefaultBech32Prefix,
		denom:         DefaultFeeDenom,
		minGasPrice:   DefaultMinGasPrice,
		balance:       DefaultGenesisBalance,
		generate:      DefaultFundedCount,
		keyType:       keys.Secp256k1,
		maxTxBytes:    DefaultMaxTxBytes,
		queryGasLimit: DefaultQueryGasLimit,
		appName:       DefaultAppName,
		appVersion:    "v0.0.0-dev",
		binaryName:    DefaultBinaryName,
		logger:        slog.New(slog.DiscardHandler),
	}
	for _, o := range opts {
		o(&cfg)
	}
	if exec == nil {
		return nil, errors.New("devnode: no executor")
	}
	if cfg.nodeName == "" {
		cfg.nodeName = "mini" + exec.Module()
	}
	price, err := sdkmath.LegacyNewDecFromStr(cfg.minGasPrice)
	if err != nil || price.IsNegative() {
		return nil, fmt.Errorf("devnode: invalid min gas price %q", cfg.minGasPrice)
	}
	cfg.gasPrice = price
	if err := sdk.ValidateDenom(cfg.denom); err != nil {
		return nil, fmt.Errorf("devnode: fee denom: %w", err)
	}
	enc, err := cosmostx.NewEncoding(cfg.prefix, exec.RegisterInterfaces)
	if err != nil {
		return nil, err
	}
	n := &Node{
		cfg:      cfg,
		enc:      enc,
		exec:     exec,
		msgTypes: map[string]bool{},
		queries:  map[string]Query{},
		valKey:   ed25519.GenPrivKeyFromSecret([]byte("devnode validator " + cfg.chainID)),
		logger:   cfg.logger,
		root:     newRootStore(dbadapter.Store{DB: dbm.NewMemDB()}),
		txs:      map[string]*txRecord{},
	}
	n.valSet = cmttypes.NewValidatorSet([]*cmttypes.Validator{cmttypes.NewValidator(n.valKey.PubKey(), 10)})
	for _, t := range exec.MsgTypeURLs() {
		n.msgTypes[t] = true
	}
	for _, q := range append(append(n.coreQueries(), n.chainQueries()...), exec.Queries()...) {
		if _, dup := n.queries[q.Method]; dup {
			return nil, fmt.Errorf("devnode: query %s registered twice", q.Method)
		}
		n.queries[q.Method] = q
	}
	if err := n.genesis(); err != nil {
		return nil, err
	}
	n.events = cmttypes.NewEventBus()
	if err := n.events.Start(); err != nil {
		return nil, fmt.Errorf("devnode: event bus: %w", err)
	}
	if n.rpc, err = serve(cfg.rpcAddr, n.rpcHandler()); err != nil {
		_ = n.events.Stop()
		return nil, err
	}
	if n.rest, err = serve(cfg.restAddr, n.restHandler()); err != nil {
		_ = n.rpc.close()
		_ = n.events.Stop()
		return nil, err
	}
	n.logger.Info("dev node started", "chain_id", cfg.chainID, "rpc", n.rpc.url, "rest", n.rest.url)
	return n, nil
}

// genesis funds the accounts and seals block 1.
func (n *Node) genesis() error {
	mnemonics := append([]string(nil), n.cfg.mnemonics...)
	for range n.cfg.generate {
		m, err := NewMnemonic()
		if err != nil {
			return err
		}
		mnemonics = append(mnemonics, m)
	}
	st := openCore(n.root, nil)
	for _, m := range mnemonics {
		acc, err := DeriveAccount(m, n.cfg.keyType, n.cfg.prefix)
		if err != nil {
			return fmt.Errorf("devnode: funded account: %w", err)
		}
		n.fund(st, acc)
		n.funded = append(n.funded, acc)
		if n.cfg.alsoKeyType != "" && n.cfg.alsoKeyType != n.cfg.keyType {
			also, err := DeriveAccount(m, n.cfg.alsoKeyType, n.cfg.prefix)
			if err != nil {
				return fmt.Errorf("devnode: funded %s account: %w", n.cfg.alsoKeyType, err)
			}
			n.fund(st, also)
			n.also = append(n.also, also)
		}
	}
	start := n.cfg.genesisTime
	if start.IsZero() {
		start = time.Now()
	}
	if g, ok := n.exec.(GenesisInitializer); ok {
		c := &Context{
			Context:   context.Background(),
			ChainID:   n.cfg.chainID,
			Time:      start.UTC(),
			GasMeter:  storetypes.NewInfiniteGasMeter(),
			Addresses: n.enc.Address,
			node:      n,
			store:     n.root,
			events:    sdk.NewEventManager(),
			txVals:    map[string]any{},
		}
		if err := g.InitGenesis(c); err != nil {
			return fmt.Errorf("devnode: %s genesis: %w", n.exec.Module(), err)
		}
	}
	n.appHash = n.root.commit(nil)
	return n.seal(nil, nil, start.UTC())
}

// nextBlockTime is the wall clock, at least 1ms after the last block.
func (n *Node) nextBlockTime() time.Time {
	t := time.Now().UTC()
	if len(n.blocks) > 0 {
		if last := n.blocks[len(n.blocks)-1].block.Time; !t.After(last) {
			t = last.Add(time.Millisecond)
		}
	}
	return t
}

// seal makes the next block from txs and their results; the state is already written.
// Callers hold n.mu.
func (n *Node) seal(txs []cmttypes.Tx, results []*abci.ExecTxResult, t time.Time) error {
	height := int64(len(n.blocks) + 1)
	headerAppHash := n.appHash // the state the block was built on
	if n.root.dirty || height > 1 {
		n.appHash = n.root.commit(n.appHash)
	}
	var (
		lastID      cmttypes.BlockID
		lastResults []*abci.ExecTxResult
		lastCommit  = &cmttypes.Commit{}
	)
	if height > 1 {
		prev := n.blocks[height-2]
		lastID, lastResults = prev.id, prev.results
		lastCommit = &cmttypes.Commit{Height: height - 1, BlockID: lastID, Signatures: []cmttypes.CommitSig{}}
	}
	block := cmttypes.MakeBlock(height, txs, lastCommit, nil)
	block.Header.Populate(
		cmtversionpb.Consensus{Block: cmtversion.BlockProtocol, App: 0},
		n.cfg.chainID, t, lastID,
		n.valSet.Hash(), n.valSet.Hash(),
		cmttypes.DefaultConsensusParams().Hash(), headerAppHash,
		cmttypes.NewResults(lastResults).Hash(),
		n.valKey.PubKey().Address(),
	)
	parts, err := block.MakePartSet(cmttypes.BlockPartSizeBytes)
	if err != nil {
		return fmt.Errorf("devnode: block parts: %w", err)
	}
	rec := &blockRecord{
		block:   block,
		id:      cmttypes.BlockID{Hash: block.Hash(), PartSetHeader: parts.Header()},
		results: results,
		appHash: n.appHash,
	}
	n.blocks = append(n.blocks, rec)
	for i, tx := range txs {
		n.txs[txKey(tx.Hash())] = &txRecord{height: height, index: uint32(i), tx: tx, result: results[i]}
	}
	n.publish(rec)
	n.logger.Debug("sealed block", "height", height, "txs", len(txs), "app_hash", fmt.Sprintf("%X", n.appHash))
	return nil
}

func txKey(hash []byte) string { return fmt.Sprintf("%X", hash) }

// CheckTxError is a tx the node refused before execution (CheckTx failed): it carries the
// ABCI codespace, code and log a real node returns from broadcast_tx_sync.
type CheckTxError struct {
	Codespace string
	Code      uint32
	Log       string
}

func (e *CheckTxError) Error() string {
	return fmt.Sprintf("tx refused: codespace %s code %d: %s", e.Codespace, e.Code, e.Log)
}

// BroadcastTxSync is broadcast_tx_sync in process: the tx is checked, and if it passes, it is
// executed in a new block before this returns. The result holds CheckTx's code and log (0 and
// "" for an accepted tx, whatever its messages then did). Errors are the mempool's own refusals
// (tx too large, already seen), which a real node answers as JSON-RPC errors.
func (n *Node) BroadcastTxSync(ctx context.Context, txBytes []byte) (*ctypes.ResultBroadcastTx, error) {
	if len(txBytes) > n.cfg.maxTxBytes {
		return nil, mempool.ErrTxTooLarge{Max: n.cfg.maxTxBytes, Actual: len(txBytes)}
	}
	tx := cmttypes.Tx(txBytes)
	hash := tx.Hash()
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, seen := n.txs[txKey(hash)]; seen {
		return nil, mempool.ErrTxInCache
	}
	t := n.nextBlockTime()
	out := n.runTx(ctx, txBytes, false, blockInfo{height: int64(len(n.blocks) + 1), time: t})
	if out.rejected != nil {
		codespace, code, log := errorsmod.ABCIInfo(out.rejected, false)
		n.logger.Debug("refused tx", "hash", fmt.Sprintf("%X", hash), "code", code, "log", log)
		return &ctypes.ResultBroadcastTx{Code: code, Codespace: codespace, Log: log, Hash: hash}, nil
	}
	if err := n.seal([]cmttypes.Tx{tx}, []*abci.ExecTxResult{out.execResult()}, t); err != nil {
		return nil, err
	}
	return &ctypes.ResultBroadcastTx{Hash: hash}, nil
}

// Simulate runs txBytes against the committed state without writing anything, as the SDK's
// Simulate service does (infinite gas meter, no signature checks, sequences checked).
func (n *Node) Simulate(ctx context.Context, txBytes []byte) (*sdk.GasInfo, *sdk.Result, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	out := n.runTx(ctx, txBytes, true, blockInfo{height: int64(len(n.blocks) + 1), time: n.nextBlockTime()})
	info := &sdk.GasInfo{GasWanted: out.gasWanted, GasUsed: out.gasUsed}
	if out.rejected != nil {
		return info, nil, out.rejected
	}
	if out.err != nil {
		return info, nil, out.err
	}
	return info, &sdk.Result{
		Data:         out.data,
		Events:       sdk.MarkEventsToIndex(out.events.ToABCIEvents(), nil),
		MsgResponses: out.responses,
	}, nil
}

// Tx returns an indexed tx, as the tx RPC does.
func (n *Node) Tx(hash []byte) (*ctypes.ResultTx, error) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	rec, ok := n.txs[txKey(hash)]
	if !ok {
		return nil, fmt.Errorf("tx (%X) not found", hash)
	}
	return &ctypes.ResultTx{Hash: rec.tx.Hash(), Height: rec.height, Index: rec.index, TxResult: *rec.result, Tx: rec.tx}, nil
}

// Height is the latest block height.
func (n *Node) Height() int64 {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return int64(len(n.blocks))
}

// AppHash is the app hash after the latest block.
func (n *Node) AppHash() []byte {
	n.mu.RLock()
	defer n.mu.RUnlock()
	return append([]byte(nil), n.appHash...)
}

// ChainID is the chain id.
func (n *Node) ChainID() string { return n.cfg.chainID }

// Encoding is the chain's codec and tx config; clients sign with it.
func (n *Node) Encoding() *cosmostx.Encoding { return n.enc }

// FeeDenom is the fee denom.
func (n *Node) FeeDenom() string { return n.cfg.denom }

// MinGasPrice is the minimum gas price in fee denom units.
func (n *Node) MinGasPrice() sdkmath.LegacyDec { return n.cfg.gasPrice }

// Funded returns the accounts funded at genesis.
func (n *Node) Funded() []Account { return append([]Account(nil), n.funded...) }

// AlsoFunded returns the accounts of the WithAlsoFundedKeyType kind funded at genesis, one
// per Funded account and in its order (none without the option).
func (n *Node) AlsoFunded() []Account { return append([]Account(nil), n.also...) }

// AlsoFundedKeyType is the WithAlsoFundedKeyType kind ("" without the option).
func (n *Node) AlsoFundedKeyType() keys.KeyType {
	if len(n.also) == 0 {
		return ""
	}
	return n.cfg.alsoKeyType
}

// fund opens acc's account at genesis with the genesis balance.
func (n *Node) fund(st coreStores, acc Account) {
	addr := acc.Key.PubKey().Address()
	n.ensureAccount(st, addr)
	setBalance(st, addr, n.cfg.denom, getBalance(st, addr, n.cfg.denom).Add(n.cfg.balance))
}

// RPCURL is the CometBFT RPC base URL (http://127.0.0.1:port).
func (n *Node) RPCURL() string { return n.rpc.url }

// RESTURL is the REST gateway base URL (http://127.0.0.1:port).
func (n *Node) RESTURL() string { return n.rest.url }

// Close stops the HTTP servers; safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() { n.closeErr = errors.Join(n.rpc.close(), n.rest.close(), n.events.Stop()) })
	return n.closeErr
}

// server is one loopback HTTP server.
type server struct {
	url string
	srv *http.Server
}

func serve(addr string, h http.Handler) (*server, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("devnode: listen: %w", err)
	}
	s := &server{url: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// close gives requests in flight 2 s, then cuts the connections off. A client's connection
// pool can hold a connection it dialled but never sent a request on (a dial that lost a race
// for a concurrent request), and Shutdown counts such a connection as busy for 5 s.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		if cerr := s.srv.Close(); cerr != nil {
			return fmt.Errorf("devnode: stop %s: %w", strings.TrimPrefix(s.url, "http://"), cerr)
		}
	}
	return nil
}
