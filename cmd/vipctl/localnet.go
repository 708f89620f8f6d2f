package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/deployer/journal"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/container"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/feeroutes"
	"github.com/vipharness/vipharness/localnet/indexer"
	"github.com/vipharness/vipharness/localnet/indexer/gethsource"
	"github.com/vipharness/vipharness/localnet/l1"
	"github.com/vipharness/vipharness/localnet/minitiad"
	"github.com/vipharness/vipharness/localnet/process"
	"github.com/vipharness/vipharness/localnet/router"
)

// localStack is a local rollup with an L1 stand-in beside it.
type localStack struct {
	engine  string
	rollup  localnet.Rollup
	l1      *l1.Server
	indexer *indexer.Indexer // beside every rollup: EVM txs, or Cosmos txs and blocks
	router  *router.Server   // EVM rollups only
	ready   time.Duration    // the rollup's start to ready
}

// engineChoice is how a command picks its engine: --engine, the interval between blocks of
// the project's own Cosmos rollups (0: the engine's default), for the minitia engine the
// minitiad binary of the VM (--minitiad; "" looks it up: VIPHARNESS_MINI<VM>, the cache) or
// its image (--image, with --image-entrypoint the words that run minitiad in it; "" looks
// up VIPHARNESS_MINI<VM>_IMAGE), and the folder that keeps the chains across runs (--data-dir; "": a new chain each run).
type engineChoice struct {
	name      string
	blockTime time.Duration
	minitiad  string
	image     string
	imageCmd  string
	dataDir   string
	// bridgeID is the bridge the L1 stand-in registers the rollup under (0: none); a real
	// minitiad knows it from genesis.
	bridgeID uint64
}

// rollupDataDir is where --data-dir keeps the rollup of vm.
func (c engineChoice) rollupDataDir(vm vip.VM) string {
	return filepath.Join(c.dataDir, "rollup-"+string(vm))
}

// l1DataDir is where --data-dir keeps the L1 stand-in.
func (c engineChoice) l1DataDir() string { return filepath.Join(c.dataDir, "l1") }

// checkMinitia refuses --minitiad, --image and --image-entrypoint where they cannot apply:
// with another engine, together (a binary or an image, not both), and an entrypoint
// without an image.
func (c engineChoice) checkMinitia() error {
	switch {
	case (c.minitiad != "" || c.image != "") && c.name != "minitia":
		flag := "--minitiad"
		if c.image != "" {
			flag = "--image"
		}
		return invalid(fmt.Errorf("%s is for --engine minitia (got --engine %q)", flag, c.name))
	case c.minitiad != "" && c.image != "":
		return invalid(fmt.Errorf("--minitiad and --image both name the rollup: pass a binary (--minitiad) or an image (--image), not both"))
	case c.imageCmd != "" && c.image == "":
		return invalid(fmt.Errorf("--image-entrypoint is for --image"))
	}
	return nil
}

// checkKeepable refuses a --data-dir the engine cannot keep, naming which: only the
// embedded rollups (every VM) keep their chain so far.
func (c engineChoice) checkKeepable() error {
	if c.dataDir == "" || c.name == "embedded" || c.name == "embedded-geth" || c.name == "" {
		return nil
	}
	return invalid(fmt.Errorf("--data-dir: the %s engine's rollup cannot be kept yet (its node's home is made new each run); use --engine embedded, or drop --data-dir", c.name))
}

// engineByName resolves the choice for vm.
func engineByName(c engineChoice, sess session, vm vip.VM) (localnet.Engine, error) {
	bt := c.blockTime
	if err := c.checkMinitia(); err != nil {
		return nil, err
	}
	if err := c.checkKeepable(); err != nil {
		return nil, err
	}
	switch c.name {
	case "embedded", "", "embedded-geth":
		e := embedded.Engine{EVMOnGeth: c.name == "embedded-geth"}
		if bt > 0 {
			e.CosmosOptions = append(e.CosmosOptions, embedded.WithBlockTime(bt))
		}
		if c.bridgeID != 0 {
			b := feeroutes.Bridge{ID: c.bridgeID, L1ChainID: l1.ChainID}
			e.CosmosOptions = append(e.CosmosOptions, embedded.WithBridge(b))
			e.EVMOptions = append(e.EVMOptions, embedded.WithEVMBridge(b))
		}
		if c.dataDir != "" {
			e.CosmosOptions = append(e.CosmosOptions, embedded.WithCosmosDataDir(c.rollupDataDir(vm)))
			e.EVMOptions = append(e.EVMOptions, embedded.WithDataDir(c.rollupDataDir(vm)))
		}
		return e, nil
	case "process":
		return process.Engine{Logger: sess.logger, BlockTime: bt}, nil
	case "process-devnode":
		return process.Engine{Logger: sess.logger, Node: process.DevNode, BlockTime: bt}, nil
	case "container":
		return container.Engine{Logger: sess.logger}, nil
	case "container-devnode":
		return container.Engine{Logger: sess.logger, Node: process.DevNode}, nil
	case "minitia":
		e := minitiad.Engine{Logger: sess.logger}
		if c.bridgeID != 0 {
			e.Bridge = minitiad.Bridge{ID: c.bridgeID, L1ChainID: l1.ChainID}
		}
		if c.minitiad != "" {
			e.Binaries = map[vip.VM]string{vm: c.minitiad}
		}
		if c.image != "" {
			e.Images = map[vip.VM]minitiad.Image{vm: {Ref: c.image, Entrypoint: strings.Fields(c.imageCmd)}}
		}
		if err := e.Available(context.Background(), vm); err != nil {
			return nil, invalid(fmt.Errorf("--engine minitia: %w (or pass --minitiad PATH or --image REF)", err))
		}
		return e, nil
	}
	return nil, invalid(fmt.Errorf("--engine %q: want embedded, process, container, minitia (Initia's own minitiad), or process-devnode / container-devnode (Wasm and EVM on our dev node binary)", c.name))
}

func startLocalStack(ctx context.Context, sess session, choice engineChoice, vm vip.VM, l1Stage uint64, l1Opts ...l1.Option) (*localStack, error) {
	engine, err := engineByName(choice, sess, vm)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	r, err := engine.StartRollup(ctx, vm)
	if err != nil {
		return nil, fmt.Errorf("start %s %s rollup: %w", engine.Name(), vm, err)
	}
	ready := time.Since(began)
	l1Opts = append([]l1.Option{l1.WithStage(l1Stage)}, l1Opts...)
	if choice.dataDir != "" {
		l1Opts = append(l1Opts, l1.WithDataDir(choice.l1DataDir()))
	}
	srv, err := l1.Start(ctx, l1Opts...)
	if err != nil {
		_ = r.Stop(ctx)
		return nil, fmt.Errorf("start L1 stand-in: %w", err)
	}
	return &localStack{engine: engine.Name(), rollup: r, l1: srv, ready: ready}, nil
}

// resumed reports whether the rollup resumed a chain its data dir kept.
func (s *localStack) resumed() bool {
	r, ok := s.rollup.(interface{ Resumed() bool })
	return ok && r.Resumed()
}

// kept says which chain runs: a new one, or the one dataDir kept.
func (s *localStack) kept(dataDir string) string {
	switch {
	case dataDir == "":
		return "a new chain, nothing of an earlier run kept; a state dir from one is told apart by its first block"
	case s.resumed():
		return "the chain kept in " + dataDir + ", resumed with its accounts and contracts; the L1 stand-in at the stage it had"
	}
	return "a new chain, kept in " + dataDir + " for the next run"
}

// prepareDataDir refuses what --data-dir cannot keep, before anything starts, and makes the
// folder (0700: it holds the dev mnemonics).
func (c engineChoice) prepareDataDir() error {
	if c.dataDir == "" {
		return nil
	}
	if err := c.checkKeepable(); err != nil {
		return err
	}
	if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	return nil
}

func (s *localStack) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.indexer != nil {
		_ = s.indexer.Close()
	}
	if s.router != nil {
		_ = s.router.Close()
	}
	_ = s.l1.Close()
	_ = s.rollup.Stop(ctx)
}

func newLocalnetCmd(ro *rootOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "localnet", Short: "Run local rollups and the L1 stand-in"}
	cmd.AddCommand(newLocalnetUpCmd(ro), newLedgerStandInCmd(ro))
	return cmd
}

// localnetUpOptions are localnet up's flags.
type localnetUpOptions struct {
	*chainOptions       // --vm alone
	l1Stage, bridgeID   uint64
	envFile, engineName string
	minitiad, dataDir   string
	image, imageCmd     string
	l1Every, blockTime  time.Duration
}

func newLocalnetUpCmd(ro *rootOptions) *cobra.Command {
	o := &localnetUpOptions{chainOptions: newChainOptions()}
	up := &cobra.Command{
		Use:   "up",
		Short: "Start a rollup for --vm (embedded dev chain, or geth/wasmd as a process or container) and the L1 stand-in; print endpoints; run until interrupted",
		Args:  cobra.NoArgs,
		RunE:  ro.runs(o.localnetUp),
	}
	up.Flags().DurationVar(&o.l1Every, "l1-advance-every", 0, "move the L1 stand-in to the next stage at this interval (its agent's signed tx), to rehearse 'vipctl operate'; 0: never")
	up.Flags().Uint64Var(&o.l1Stage, "l1-stage", 1, "stage the L1 stand-in reports")
	up.Flags().Uint64Var(&o.bridgeID, "bridge-id", 1, "register the rollup on the L1 stand-in under this bridge id (scored from the stage after --l1-stage) and run a local VIP agent that snapshots each stage the deployed contract finalizes (submit_snapshot); 0: neither")
	up.Flags().DurationVar(&o.blockTime, "block-time", 0, "interval between blocks of the Wasm and Move rollups (the project's minitia app; default 100ms, fast for tests; 500ms is a minitia's pace)")
	up.Flags().StringVar(&o.engineName, "engine", "embedded", "embedded (in-process; EVM as a minievm is built), embedded-geth (in-process, EVM on go-ethereum's simulated chain), process (geth from 'make nodes'), container (Docker) or minitia (Initia's own minitiad: a binary, or an image with --image)")
	up.Flags().StringVar(&o.minitiad, "minitiad", "", "with --engine minitia: the VM's minitiad binary (default $VIPHARNESS_MINIEVM / _MINIWASM / _MINIMOVE, else <cache>/minitia/<minievm|miniwasm|minimove>/minitiad)")
	addImageFlags(up, &o.image, &o.imageCmd)
	up.Flags().StringVar(&o.dataDir, "data-dir", "", "keep the chains in this folder across runs (the same chain id, dev mnemonic and contract state; new ports, the env file rewritten); the embedded engine and the L1 stand-in only; default: a new chain each run")
	up.Flags().StringVar(&o.envFile, "env-file", filepath.Join(".vipharness", "localnet.env"), "where to write the endpoints and dev key")
	return o.addFlags(up, "vm")
}

// addImageFlags adds --image and --image-entrypoint (the minitia engine from an image).
func addImageFlags(cmd *cobra.Command, image, entrypoint *string) {
	cmd.Flags().StringVar(image, "image", "", "with --engine minitia: run the VM's minitiad from this image, every command in a container (e.g. ghcr.io/initia-labs/minievm:<version>; default $VIPHARNESS_MINIEVM_IMAGE / _MINIWASM_IMAGE / _MINIMOVE_IMAGE); not with --minitiad")
	cmd.Flags().StringVar(entrypoint, "image-entrypoint", "", "with --image: the words that run minitiad in it (default /usr/local/bin/minitiad, where Initia's images keep it)")
}

// localnetUp starts the rollup and the L1 stand-in, writes the env file and runs until
// interrupted.
func (o *localnetUpOptions) localnetUp(ctx context.Context, sess session) error {
	go serverGC(ctx, liveHeap)
	l1Stage, envFile, engineName, l1Every, bridgeID := o.l1Stage, o.envFile, o.engineName, o.l1Every, o.bridgeID
	vm, _ := vip.ParseVM(o.vm)
	var l1Opts []l1.Option
	if bridgeID != 0 {
		l1Opts = append(l1Opts, l1.WithBridge(l1.Bridge{ID: bridgeID, VM: vm, Contract: "(deployed by vipctl deploy)"}))
	}
	if l1Every > 0 {
		// The stages' recorded times follow the cadence (not 14 days each), so a scoring
		// policy finds each stage's blocks when the L1 moves on: operate --policy rehearses.
		l1Opts = append(l1Opts, l1.WithStageInterval(l1Every))
	}
	choice := engineChoice{name: engineName, blockTime: o.blockTime, minitiad: o.minitiad, image: o.image, imageCmd: o.imageCmd, dataDir: o.dataDir, bridgeID: bridgeID}
	if err := choice.prepareDataDir(); err != nil {
		return err
	}
	st, err := startLocalStack(ctx, sess, choice, vm, l1Stage, l1Opts...)
	if err != nil {
		return err
	}
	defer st.stop()
	if st.resumed() {
		// A kept L1 is at the stage it had, not --l1-stage.
		if l1Stage, err = st.l1.Stage(ctx); err != nil {
			return fmt.Errorf("read the kept L1's stage: %w", err)
		}
	}
	ep := st.rollup.Endpoints()
	indexerURL, routerURL := "", ""
	if ep.JSONRPC != "" {
		if st.indexer, err = startEVMIndexer(ctx, st.rollup, ep.JSONRPC, sess); err != nil {
			return fmt.Errorf("start indexer: %w", err)
		}
		indexerURL = st.indexer.URL()
		// The routing service names an EVM chain by its EVM chain id, and the fixture
		// graph's EVM rollup is the embedded one's; another EVM chain (geth --dev keeps
		// 1337) is routed over but its transfers are not tracked.
		routed, err := evmChainID(ctx, ep.JSONRPC)
		if err != nil {
			return fmt.Errorf("start router stand-in: %w", err)
		}
		opts := []router.Option{router.WithLogger(sess.logger)}
		if graphHasChain(router.DefaultGraph(), routed) {
			opts = append(opts, router.WithChain(routed, ep.JSONRPC))
		} else {
			fmt.Fprintf(sess.errOut, "router stand-in: its graph has no chain %s; transfers on this rollup are not tracked\n", routed)
		}
		if st.router, err = router.Start(ctx, opts...); err != nil {
			return fmt.Errorf("start router stand-in: %w", err)
		}
		routerURL = st.router.URL()
	} else if ep.CometRPC != "" && ep.REST != "" {
		// A Move or Wasm rollup: the indexer serves rollytics' Cosmos tx and block APIs.
		if st.indexer, err = indexer.NewCosmos(ctx, ep.CometRPC, ep.REST, indexer.WithLogger(sess.logger)); err != nil {
			return fmt.Errorf("start indexer: %w", err)
		}
		indexerURL = st.indexer.URL()
	}
	dev := st.rollup.Funded()[0]
	// The dev key of a throwaway chain goes to a 0600 file, never to the terminal. The file
	// appears whole (renamed into place): a script that waits for it never reads a part.
	writeEnv := func(l1Stage uint64) error {
		env := fmt.Sprintf("export VM=%s\nexport JSON_RPC_URL=%s\nexport COMET_RPC_URL=%s\nexport REST_URL=%s\nexport INDEXER_URL=%s\nexport ROUTER_URL=%s\nexport L1_REST_URL=%s\nexport VIP_MODULE_ADDRESS=%s\n",
			vm, ep.JSONRPC, ep.CometRPC, ep.REST, indexerURL, routerURL, st.l1.URL(), st.l1.VIPAddress()) +
			devKeyLines(vm, dev) + recipeLines(vm, ep, l1Stage)
		if err := journal.WriteFileDurably(envFile, 0o600, func(w io.Writer) error { _, err := io.WriteString(w, env); return err }); err != nil {
			return fmt.Errorf("write env file: %w", err)
		}
		return nil
	}
	if err := writeEnv(l1Stage); err != nil {
		return err
	}
	info := map[string]any{
		"vm": vm, "engine": st.engine, "chain_id": st.rollup.ChainID(), "data_dir": o.dataDir, "resumed": st.resumed(),
		"json_rpc": ep.JSONRPC, "json_rpc_ws": ep.JSONRPCWS, "comet_rpc": ep.CometRPC, "rest": ep.REST, "indexer": indexerURL, "router": routerURL,
		"l1_rest": st.l1.URL(), "vip_address": st.l1.VIPAddress(), "l1_stage": l1Stage,
		"funded_address": dev.Address, "env_file": envFile, "bridge_id": bridgeID,
	}
	funded := dev.Address
	if dev.CoinType60Address != "" {
		info["funded_address_coin_type_60"] = dev.CoinType60Address
	}
	// The other coin type's account is the one named beside the first (a minievm's 0x
	// account also has its coin type 60 bech32 form: the same account).
	switch {
	case dev.CoinType118Address != "":
		info["funded_address_coin_type_118"] = dev.CoinType118Address
		funded = fmt.Sprintf("%s (coin type 60 eth_secp256k1) and %s (coin type 118 secp256k1), one mnemonic", dev.Address, dev.CoinType118Address)
	case dev.CoinType60Address != "":
		funded = fmt.Sprintf("%s (coin type 118 secp256k1) and %s (coin type 60 eth_secp256k1), one mnemonic", dev.Address, dev.CoinType60Address)
	}
	human := fmt.Sprintf("%s %s rollup (chain %s: %s)\n  JSON-RPC   %s\n  WebSocket  %s\n  CometBFT   %s\n  REST       %s\n  indexer    %s\n  router     %s\nL1 stand-in (stage %d)\n  REST       %s\n  vip module %s\nfunded dev account %s\nsource %s to use it (holds the dev key); Ctrl-C stops",
		st.engine, vm, st.rollup.ChainID(), st.kept(o.dataDir), orNone(ep.JSONRPC), orNone(ep.JSONRPCWS), orNone(ep.CometRPC), orNone(ep.REST), orNone(indexerURL), orNone(routerURL), l1Stage, st.l1.URL(), st.l1.VIPAddress(), funded, envFile)
	if err := sess.printResult(info, human); err != nil {
		return err
	}
	if l1Every > 0 {
		// INIT_STAGE follows the L1: a deploy that reads it (the official forge recipe)
		// opens at the L1's stage of the moment, not the one at start.
		go advanceL1(ctx, st.l1, l1Every, sess.errOut, writeEnv)
	}
	if bridgeID != 0 {
		a, closeAgent := sess.localAgent(vm, st.rollup, st.l1, bridgeID)
		defer closeAgent()
		go a.Run(ctx)
	}
	<-ctx.Done()
	return nil
}

// evmChainID is the EVM chain id a JSON-RPC node reports, in decimal.
func evmChainID(ctx context.Context, rpcURL string) (string, error) {
	c, err := ethnode.Dial(ctx, rpcURL)
	if err != nil {
		return "", err
	}
	defer c.Close()
	id, err := c.ChainID(ctx)
	if err != nil {
		return "", fmt.Errorf("read the EVM chain id: %w", err)
	}
	return id.String(), nil
}

// startEVMIndexer starts the indexer stand-in beside an EVM rollup: over JSON-RPC, as it
// follows any node, or, on the geth chain (embedded-geth), reading the chain in this process, which
// spares both sides encoding and decoding every receipt (a fifth of the localnet's CPU
// under a push).
func startEVMIndexer(ctx context.Context, r localnet.Rollup, rpcURL string, sess session) (*indexer.Indexer, error) {
	if ev, ok := r.(*embedded.GethRollup); ok {
		return indexer.NewFromSource(ctx, gethsource.New(ev.SealedChain()), indexer.WithLogger(sess.logger))
	}
	return indexer.New(ctx, rpcURL, indexer.WithLogger(sess.logger))
}

// fundedLines are the env file's lines naming the mnemonic's funded accounts: the chain's
// default one, and on the Cosmos rollups the other coin type's too: on Wasm the coin type 60
// eth_secp256k1 one that Initia's wallets derive (Initia.js MnemonicKey() with its defaults),
// on Move the coin type 118 secp256k1 one that CosmJS derives.
func fundedLines(dev localnet.Account) string {
	if dev.CoinType118Address != "" {
		return "# MNEMONIC funds two accounts: coin type 60 eth_secp256k1 (Initia's wallets, vipctl's Move default)\n" +
			"# and coin type 118 secp256k1 (CosmJS; vipctl --key-type secp256k1)\n" +
			fmt.Sprintf("export FUNDED_ADDRESS=%s\nexport FUNDED_ADDRESS_COIN_TYPE_118=%s\n", dev.Address, dev.CoinType118Address)
	}
	if dev.CoinType60Address == "" {
		return fmt.Sprintf("export FUNDED_ADDRESS=%s\n", dev.Address)
	}
	return "# MNEMONIC funds two accounts: coin type 118 secp256k1 (vipctl's Wasm default)\n" +
		"# and coin type 60 eth_secp256k1 (Initia.js MnemonicKey() defaults; vipctl --key-type eth_secp256k1)\n" +
		fmt.Sprintf("export FUNDED_ADDRESS=%s\nexport FUNDED_ADDRESS_COIN_TYPE_60=%s\n", dev.Address, dev.CoinType60Address)
}

// devKeyLines name the dev account's key: MNEMONIC where it derives from one, PRIVATE_KEY
// where it does not, and on EVM PRIVATE_KEY (0x hex, as forge's vm.envUint parses it)
// beside MNEMONIC as well, for Foundry's recipes (one account: vipctl takes both).
func devKeyLines(vm vip.VM, dev localnet.Account) string {
	if dev.Mnemonic == "" {
		return fmt.Sprintf("export PRIVATE_KEY=%s\n", evmHex(vm, dev.PrivateKey))
	}
	lines := fundedLines(dev) + fmt.Sprintf("export MNEMONIC=%q\n", dev.Mnemonic)
	if !vip.MustDescribe(vm).Cosmos && dev.PrivateKey != "" {
		lines += fmt.Sprintf("export PRIVATE_KEY=%s\n", evmHex(vm, dev.PrivateKey))
	}
	return lines
}

// evmHex is key with 0x on EVM (Foundry reads an unprefixed key as a decimal number).
func evmHex(vm vip.VM, key string) string {
	if vip.MustDescribe(vm).Cosmos {
		return key
	}
	return "0x" + strings.TrimPrefix(key, "0x")
}

// recipeLines are the rest of what the official recipes and ethers read: INIT_STAGE (the
// L1's current stage, the file rewritten whole as the L1 advances: the stage a contract
// deployed now opens with) and, on EVM, the WebSocket endpoint.
func recipeLines(vm vip.VM, ep localnet.Endpoints, l1Stage uint64) string {
	lines := fmt.Sprintf("export INIT_STAGE=%d\n", l1Stage)
	if !vip.MustDescribe(vm).Cosmos && ep.JSONRPCWS != "" {
		lines += fmt.Sprintf("export JSON_RPC_WS_URL=%s\n", ep.JSONRPCWS)
	}
	return lines
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// advanceL1 moves the L1 stand-in on by one stage every interval until ctx ends, and hands
// each new stage to moved.
func advanceL1(ctx context.Context, srv *l1.Server, every time.Duration, out io.Writer, moved func(stage uint64) error) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			st, err := srv.Advance(ctx)
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(out, "L1 stand-in:", err)
				}
				continue
			}
			fmt.Fprintf(out, "L1 stand-in: stage %d\n", st)
			if err := moved(st); err != nil {
				fmt.Fprintln(out, "L1 stand-in:", err)
			}
		}
	}
}

func graphHasChain(g *router.Graph, chainID string) bool {
	for _, c := range g.Chains {
		if c.ChainID == chainID {
			return true
		}
	}
	return false
}
