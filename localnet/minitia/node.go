package minitia

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	cmtdb "github.com/cometbft/cometbft-db"
	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmtnode "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/proxy"
	rpclocal "github.com/cometbft/cometbft/rpc/client/local"
	cmtstate "github.com/cometbft/cometbft/state"
	cmtstore "github.com/cometbft/cometbft/store"
	cmttypes "github.com/cometbft/cometbft/types"
	cmtversion "github.com/cometbft/cometbft/version"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	"github.com/cosmos/cosmos-sdk/server"
	"github.com/cosmos/cosmos-sdk/server/api"
	serverconfig "github.com/cosmos/cosmos-sdk/server/config"
	servergrpc "github.com/cosmos/cosmos-sdk/server/grpc"
	servercmtlog "github.com/cosmos/cosmos-sdk/server/log"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/minitia/ethrpc"
)

// Node is a running local minitia: the App under a CometBFT node in this process (one
// validator, blocks every Config.BlockTime), CometBFT's RPC and websocket, the SDK's API
// server and gRPC server, all on 127.0.0.1.
type Node struct {
	cfg  Config
	app  *App
	cmt  *cmtnode.Node
	grpc *grpc.Server
	// grpcConn is the REST gateway's client of grpc.
	grpcConn *grpc.ClientConn
	cancel   context.CancelFunc
	served   sync.WaitGroup
	home     string
	temp     bool
	gen      *genesis
	resumed  bool       // the chain Home kept (Config.Persist)
	cmtDBs   []cmtdb.DB // CometBFT's stores, closed by Close (its Stop leaves the tx index open)
	// cmtDBByID are the same stores by name (blockstore, state, ...).
	cmtDBByID map[string]cmtdb.DB

	rpcURL, apiURL, grpcAddr string
	// jsonrpc serves an EVM rollup's Ethereum JSON-RPC at jsonrpcURL.
	jsonrpc                  []*http.Server
	jsonrpcURL, jsonrpcWSURL string

	closeOnce sync.Once
	closeErr  error
}

// Start runs a new chain with cfg and returns once it has made its first block and its API
// server answers.
func Start(ctx context.Context, cfg Config) (_ *Node, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, home: cfg.Home}
	if n.home == "" {
		if n.home, err = os.MkdirTemp("", "minitia-"); err != nil {
			return nil, fmt.Errorf("minitia: home: %w", err)
		}
		n.temp = true
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Close())
		}
	}()
	addrs, err := listenAddrs(cfg.RPCAddr, cfg.APIAddr, cfg.GRPCAddr, "")
	if err != nil {
		return nil, err
	}
	rpcAddr, apiAddr, grpcAddr, p2pAddr := addrs[0], addrs[1], addrs[2], addrs[3]
	// The gRPC server's listener is held from now, not opened when it starts serving: a port
	// found free can be taken by another process in between, and the REST gateway asks it.
	grpcLn, err := net.Listen("tcp", grpcAddr)
	if err != nil {
		return nil, fmt.Errorf("minitia: gRPC listener on %s: %w", grpcAddr, err)
	}
	grpcServed := false
	defer func() {
		if !grpcServed {
			grpcLn.Close()
		}
	}()
	logger := newSDKLogger(cfg.Logger)

	db, err := appDB(cfg, n.home)
	if err != nil {
		return nil, err
	}
	if n.app, err = NewApp(cfg, db, n.home, logger); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	n.app.opchildValidators = n.opchildValidators
	cc := cometConfig(n.home, cfg, rpcAddr, p2pAddr)
	cmtcfg.EnsureRoot(n.home)
	pv, err := n.chainStart(cfg, cc)
	if err != nil {
		return nil, err
	}
	n.cmt, err = cmtnode.NewNode(cc, pv, &p2p.NodeKey{PrivKey: ed25519.GenPrivKey()},
		proxy.NewLocalClientCreator(server.NewCometABCIWrapper(n.app)),
		func() (*cmttypes.GenesisDoc, error) { return n.gen.doc, nil },
		n.openCometDB, cmtnode.DefaultMetricsProvider(cc.Instrumentation),
		servercmtlog.CometLoggerWrapper{Logger: logger.With("module", "cometbft")})
	if err != nil {
		return nil, fmt.Errorf("minitia: consensus node: %w", err)
	}
	if n.app.EthIndex != nil && n.resumed {
		if err := n.reindex(); err != nil {
			return nil, err
		}
	}
	if err := n.cmt.Start(); err != nil {
		n.cmt = nil
		return nil, fmt.Errorf("minitia: start consensus: %w", err)
	}
	n.rpcURL = "http://" + rpcAddr

	srvCfg := serverconfig.DefaultConfig()
	srvCfg.MinGasPrices = cfg.MinGasPrices().String()
	srvCfg.API.Enable, srvCfg.API.Swagger = true, false
	srvCfg.API.Address = "tcp://" + apiAddr
	srvCfg.API.RPCMaxBodyBytes = uint(4*cfg.MaxTxBytes + 1<<20)
	srvCfg.GRPC.Enable, srvCfg.GRPC.Address = true, grpcAddr
	// A kept chain that resumes has no latest header in its check state until its next
	// block (an idle EVM rollup makes none for a minute): queries skip the SDK's check of it.
	srvCfg.GRPC.SkipCheckHeader = n.resumed
	srvCfg.GRPCWeb.Enable = false

	enc := n.app.enc
	clientCtx := client.Context{}.
		WithCodec(enc.Codec).WithInterfaceRegistry(enc.Registry).WithTxConfig(enc.TxConfig).
		WithLegacyAmino(n.app.amino).WithClient(rpclocal.New(n.cmt)).WithChainID(cfg.ChainID).
		WithAccountRetriever(authtypes.AccountRetriever{}).WithHomeDir(n.home)
	n.app.RegisterTxService(clientCtx)
	n.app.RegisterTendermintService(clientCtx)
	n.app.RegisterNodeService(clientCtx, *srvCfg)

	srvCtx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	if n.grpc, err = servergrpc.NewGRPCServer(clientCtx, n.app, srvCfg.GRPC); err != nil {
		return nil, fmt.Errorf("minitia: gRPC server: %w", err)
	}
	n.serve(func() error { return serveGRPC(srvCtx, n.grpc, grpcLn) })
	grpcServed = true
	n.grpcAddr = grpcAddr

	// The REST gateway asks the gRPC server, as the SDK's own start command wires it (and a
	// minitiad answers): a module's error then reads as its gRPC status ("codespace wasm
	// code 22: no such contract: ..."), not as an ABCI query's log.
	n.grpcConn, err = grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(codec.NewProtoCodec(enc.Registry).GRPCCodec()),
			grpc.MaxCallRecvMsgSize(serverconfig.DefaultGRPCMaxRecvMsgSize), grpc.MaxCallSendMsgSize(serverconfig.DefaultGRPCMaxSendMsgSize)))
	if err != nil {
		return nil, fmt.Errorf("minitia: gRPC client for the REST gateway: %w", err)
	}
	apiSrv := api.New(clientCtx.WithGRPCClient(n.grpcConn), logger.With("module", "api-server"), n.grpc)
	n.app.RegisterAPIRoutes(apiSrv, srvCfg.API)
	fees := http.NewServeMux()
	if cfg.TxGasPrices { // the L1 stand-in runs no opchild
		feeroutes.Register(fees, cfg.MinGasPrices, cfg.TxGasPrices)
	} else {
		// A rollup's opchild answers from its state at the latest block.
		latest := func() (sdk.Context, error) { return n.app.CreateQueryContext(n.app.LastBlockHeight(), false) }
		feeroutes.RegisterWithParams(fees, cfg.MinGasPrices, func() (feeroutes.Params, error) {
			ctx, err := latest()
			if err != nil {
				return feeroutes.Params{}, err
			}
			b, err := n.app.opchildParams(ctx)
			if err != nil {
				return feeroutes.Params{}, err
			}
			return feeroutes.UnmarshalParams(b)
		}, false)
		feeroutes.RegisterOpchild(fees, feeroutes.Opchild{
			Validators: func(r *http.Request) ([]feeroutes.Validator, error) { return n.opchildValidators(r.Context()) },
			NextL1Sequence: func(*http.Request) (uint64, error) {
				ctx, err := latest()
				if err != nil {
					return 0, err
				}
				return n.app.nextL1Sequence(ctx), nil
			},
			BridgeInfo: func(*http.Request) (*feeroutes.BridgeInfo, error) {
				ctx, err := latest()
				if err != nil {
					return nil, err
				}
				b := n.app.bridgeInfo(ctx)
				if b == nil {
					return nil, nil
				}
				info, err := feeroutes.UnmarshalBridgeInfo(b)
				return &info, err
			},
		})
	}
	apiSrv.Router.PathPrefix("/opinit/opchild/").Handler(fees)
	apiSrv.Router.PathPrefix("/initia/tx/").Handler(fees)
	if n.app.WasmKeeper != nil {
		registerWasmGateway(apiSrv.Router, apiSrv.GRPCGatewayRouter)
	}
	if n.app.MoveKeeper != nil {
		apiSrv.Router.PathPrefix("/initia/move/").Handler(n.app.MoveKeeper.Routes(n.app, enc.Registry))
	}
	n.serve(func() error { return apiSrv.Start(srvCtx, *srvCfg) })
	n.apiURL = "http://" + apiAddr
	if n.app.EthIndex != nil {
		if err := n.serveJSONRPC(clientCtx); err != nil {
			return nil, err
		}
	}

	if err := n.waitReady(ctx); err != nil {
		return nil, err
	}
	cfg.Logger.Info("minitia started", "vm", cfg.VM, "chain_id", cfg.ChainID, "rpc", n.rpcURL, "rest", n.apiURL)
	return n, nil
}

func (n *Node) serve(f func() error) {
	n.served.Add(1)
	go func() {
		defer n.served.Done()
		if err := f(); err != nil {
			n.cfg.Logger.Error("minitia: server stopped", "err", err)
		}
	}()
}

// serveGRPC serves srv on ln until ctx ends (then stops it gracefully) or serving fails.
func serveGRPC(ctx context.Context, srv *grpc.Server, ln net.Listener) error {
	errCh := make(chan error, 1)
	go func() { errCh <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		srv.GracefulStop()
		return nil
	case err := <-errCh:
		return err
	}
}

// waitReady waits until the app has committed block 1 (before that a query finds no state)
// and the API server answers.
func (n *Node) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	hc := &http.Client{Timeout: time.Second}
	for {
		if n.Height() >= 1 {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.apiURL+"/cosmos/base/tendermint/v1beta1/syncing", nil)
			if resp, err := hc.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("minitia: not ready (height %d): %w", n.Height(), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// cometConfig is a single validator's CometBFT configuration: loopback only, no peers,
// blocks every cfg.BlockTime, state in memory (on disk in home with cfg.Persist), the kv
// tx index for tx_search.
func cometConfig(home string, cfg Config, rpcAddr, p2pAddr string) *cmtcfg.Config {
	cc := cmtcfg.DefaultConfig()
	cc.SetRoot(home)
	cc.Moniker = Moniker
	cc.DBBackend = "memdb"
	if cfg.Persist {
		cc.DBBackend = "goleveldb"
	}
	cc.RPC.ListenAddress = "tcp://" + rpcAddr
	cc.RPC.MaxBodyBytes = 4*cfg.MaxTxBytes + 1<<20
	cc.RPC.PprofListenAddress = ""
	cc.P2P.ListenAddress = "tcp://" + p2pAddr
	cc.P2P.PexReactor = false
	cc.P2P.AllowDuplicateIP = true
	cc.P2P.AddrBookStrict = false
	cc.Consensus.TimeoutCommit = cfg.BlockTime
	cc.Consensus.TimeoutPropose = time.Second
	cc.Consensus.CreateEmptyBlocks = true
	if cfg.VM == vip.EVM {
		// minievm's CometBFT settings: a block when txs come (and the one after it, which
		// commits their app hash), else an empty one each minute.
		cc.Consensus.CreateEmptyBlocks = false
		cc.Consensus.CreateEmptyBlocksInterval = EVMEmptyBlockInterval
	}
	cc.Mempool.MaxTxBytes = int(cfg.MaxTxBytes)
	cc.Instrumentation.Prometheus = false
	cc.TxIndex.Indexer = "kv"
	return cc
}

// openCometDB opens one of CometBFT's stores, for Close to close.
func (n *Node) openCometDB(ctx *cmtcfg.DBContext) (cmtdb.DB, error) {
	db, err := cmtcfg.DefaultDBProvider(ctx)
	if err == nil {
		n.cmtDBs = append(n.cmtDBs, db)
		if n.cmtDBByID == nil {
			n.cmtDBByID = map[string]cmtdb.DB{}
		}
		n.cmtDBByID[ctx.ID] = db
	}
	return db, err
}

// reindex feeds a resumed EVM chain's blocks to its Ethereum index from CometBFT's stores
// (its blocks and their results), before consensus makes new ones, and takes its last block
// as the committed one.
func (n *Node) reindex() error {
	blocks, states := n.cmtDBByID["blockstore"], n.cmtDBByID["state"]
	if blocks == nil || states == nil {
		return errors.New("minitia: reindex: CometBFT's block or state store is not open")
	}
	bs := cmtstore.NewBlockStore(blocks)
	ss := cmtstate.NewStore(states, cmtstate.StoreOptions{})
	for h := max(bs.Base(), 1); h <= bs.Height() && h > 0; h++ {
		b := bs.LoadBlock(h)
		if b == nil {
			return fmt.Errorf("minitia: reindex: no block %d in CometBFT's store", h)
		}
		res, err := ss.LoadFinalizeBlockResponse(h)
		if err != nil {
			return fmt.Errorf("minitia: reindex: results of block %d: %w", h, err)
		}
		txs := make([][]byte, len(b.Txs))
		for i, tx := range b.Txs {
			txs[i] = tx
		}
		n.app.EthIndex.Add(ethrpc.Block{ChainID: b.ChainID, Height: h, Time: b.Time, Txs: txs, Results: res.TxResults})
		// The chain is ready at its kept head: an idle EVM rollup makes no block to say so.
		if h == bs.Height() {
			n.app.committed.Store(&Committed{Height: h, Time: b.Time})
		}
	}
	return nil
}

// listenAddrs gives each empty address a free 127.0.0.1 port, and each host:0 a free port
// on that host.
func listenAddrs(addrs ...string) ([]string, error) {
	out := make([]string, len(addrs))
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for i, a := range addrs {
		host, port := "127.0.0.1", "0"
		if a != "" {
			var err error
			if host, port, err = net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("minitia: listen address %q: %w", a, err)
			}
		}
		if port != "0" {
			out[i] = a
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("minitia: find a free port on %s: %w", host, err)
		}
		lns = append(lns, ln)
		out[i] = net.JoinHostPort(host, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	}
	return out, nil
}

// App is the running application.
func (n *Node) App() *App { return n.app }

// ChainID is the Cosmos chain id.
func (n *Node) ChainID() string { return n.cfg.ChainID }

// Config is the validated configuration the node runs with.
func (n *Node) Config() Config { return n.cfg }

// RPCURL is CometBFT's RPC (and /websocket) URL.
func (n *Node) RPCURL() string { return n.rpcURL }

// RESTURL is the API server's URL.
func (n *Node) RESTURL() string { return n.apiURL }

// GRPCAddr is the gRPC server's host:port.
func (n *Node) GRPCAddr() string { return n.grpcAddr }

// Height is the latest height the app has committed: what queries and simulations read.
func (n *Node) Height() int64 {
	if c := n.app.LastCommitted(); c != nil {
		return c.Height
	}
	return 0
}

// BlockTime is the header time of the latest block the app has committed (zero before the
// first): the time a simulation's Move code reads as now.
func (n *Node) BlockTime() time.Time {
	if c := n.app.LastCommitted(); c != nil {
		return c.Time
	}
	return time.Time{}
}

// Funded are the accounts of Config.KeyType funded at genesis, one per mnemonic.
func (n *Node) Funded() []Account { return append([]Account(nil), n.gen.funded...) }

// AlsoFunded are the same mnemonics' accounts of the other key type, in the same order.
func (n *Node) AlsoFunded() []Account { return append([]Account(nil), n.gen.also...) }

// Close stops the servers, the consensus node and the app, and removes a temporary home;
// safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		var errs []error
		if n.cancel != nil {
			n.cancel()
		}
		for _, hs := range n.jsonrpc {
			_ = hs.Close()
		}
		if n.cmt != nil {
			if err := n.cmt.Stop(); err != nil {
				errs = append(errs, fmt.Errorf("stop consensus: %w", err))
			}
			n.cmt.Wait()
		}
		for _, db := range n.cmtDBs {
			_ = db.Close() // most are closed already by the node's Stop
		}
		n.served.Wait()
		if n.grpcConn != nil {
			_ = n.grpcConn.Close()
		}
		if n.app != nil {
			if err := n.app.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close app: %w", err))
			}
		}
		if n.temp {
			errs = append(errs, os.RemoveAll(n.home))
		}
		n.closeErr = errors.Join(errs...)
	})
	return n.closeErr
}

// Moniker is the node's moniker, which minitiad init gives its genesis validator too.
const Moniker = "sequencer"

// opchildValidators are the rollup's validators as opchild lists them: the sequencer of
// CometBFT's current set, operated by the first funded account (as a minitia's genesis
// validator is by its admin key), under the node's moniker.
func (n *Node) opchildValidators(ctx context.Context) ([]feeroutes.Validator, error) {
	res, err := rpclocal.New(n.cmt).Validators(ctx, nil, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("read the validator set: %w", err)
	}
	funded := n.Funded()
	if len(funded) == 0 {
		return nil, errors.New("the rollup funds no account to operate its validator")
	}
	_, op, err := bech32.DecodeAndConvert(funded[0].Address)
	if err != nil {
		return nil, fmt.Errorf("operator %s: %w", funded[0].Address, err)
	}
	operator, err := bech32.ConvertAndEncode(n.cfg.Bech32Prefix+"valoper", op)
	if err != nil {
		return nil, err
	}
	out := make([]feeroutes.Validator, 0, len(res.Validators))
	for _, v := range res.Validators {
		out = append(out, feeroutes.Validator{Moniker: Moniker, OperatorAddress: operator,
			ConsensusPubkey: feeroutes.Ed25519Key(v.PubKey.Bytes()), ConsPower: v.VotingPower})
	}
	return out, nil
}

// serveJSONRPC serves an EVM rollup's Ethereum JSON-RPC (minievm's jsonrpc) on its own port.
func (n *Node) serveJSONRPC(clientCtx client.Context) error {
	addrs, err := listenAddrs(n.cfg.JSONRPCAddr, n.cfg.JSONRPCWSAddr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addrs[0])
	if err != nil {
		return fmt.Errorf("minitia: JSON-RPC listener on %s: %w", addrs[0], err)
	}
	wsLn, err := net.Listen("tcp", addrs[1])
	if err != nil {
		ln.Close()
		return fmt.Errorf("minitia: JSON-RPC WebSocket listener on %s: %w", addrs[1], err)
	}
	a := n.app
	srv, err := ethrpc.NewServer(ethrpc.Chain{
		Keeper: a.EVMKeeper, TxConfig: a.enc.TxConfig, Addresses: a.enc.Address, ChainID: n.cfg.ChainID,
		FeeDenom: n.cfg.FeeDenom, MinGasPrice: n.cfg.minGasPrice, Version: cmtversion.TMCoreSemVer,
		State: func(height int64) (sdk.Context, error) {
			if height == 0 {
				height = a.LastBlockHeight()
			}
			return a.CreateQueryContext(height, false)
		},
		Simulate: func(tx []byte) (uint64, error) {
			info, _, err := a.Simulate(tx)
			return info.GasUsed, err
		},
		Broadcast: func(ctx context.Context, tx []byte) (uint32, string, error) {
			res, err := clientCtx.Client.(*rpclocal.Local).BroadcastTxSync(ctx, tx)
			// As minievm's client context: a tx the mempool already holds, a full mempool
			// and a tx too large are SDK codes with no log, so its JSON-RPC answers them
			// with an empty message.
			if r := client.CheckCometError(err, tx); r != nil {
				return r.Code, r.RawLog, nil
			}
			if err != nil {
				return 0, "", err
			}
			return res.Code, res.Log, nil
		},
	}, a.EthIndex)
	if err != nil {
		ln.Close()
		wsLn.Close()
		return err
	}
	// As on a minievm, WebSocket has a port of its own: the HTTP port refuses an upgrade.
	httpOnly := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		srv.ServeHTTP(w, r)
	})
	for _, s := range []struct {
		ln net.Listener
		h  http.Handler
	}{{ln, httpOnly}, {wsLn, srv.WebsocketHandler([]string{"*"})}} {
		hs := &http.Server{Handler: s.h, ReadHeaderTimeout: 10 * time.Second}
		n.jsonrpc = append(n.jsonrpc, hs)
		n.serve(func() error {
			if err := hs.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		})
	}
	n.jsonrpcURL, n.jsonrpcWSURL = "http://"+addrs[0], "ws://"+addrs[1]
	return nil
}

// JSONRPCWSURL is an EVM rollup's Ethereum JSON-RPC over WebSocket ("" on other VMs).
func (n *Node) JSONRPCWSURL() string { return n.jsonrpcWSURL }

// JSONRPCURL is an EVM rollup's Ethereum JSON-RPC URL ("" on other VMs).
func (n *Node) JSONRPCURL() string { return n.jsonrpcURL }
