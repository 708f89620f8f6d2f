// Package l1 is a stand-in for the Initia L1 as far as VIP deployments read it: a Move chain
// (the local minitia application with x/move, localnet/minitia) whose genesis holds a small vip module at the VIP
// module address. Its ModuleStore carries the current stage; it is read through the real Move
// REST route (resources/by_struct_tag) and moved on by the agent's signed MsgExecute txs
// (advance_stage, set_stage). Stages it moves past get stage data, where the agent's
// submit_snapshot keeps a bridge's merkle root and total (SubmitSnapshot), read back through
// the real table routes, and users' batch_claim_user_reward_script checks their proofs
// (snapshot.go). Unknown accounts, struct tags and paths get the node's gRPC gateway errors.
package l1

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/minitia/xmove"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// DefaultVIPAddress is the stand-in's vip module address (a 32-byte Move address).
const DefaultVIPAddress = "0x" + "00000000000000000000000000000000000000000000000000000000000000f1"

// ChainID is the stand-in L1's chain id.
const ChainID = "vip-l1-1"

type config struct {
	stage    uint64
	vip      string
	interval time.Duration
	logger   *slog.Logger
	bridges  []Bridge // registered at genesis (snapshot.go)
	funded   []string // mnemonics of accounts funded at genesis besides the agent
	dataDir  string   // keeps the chain ("": in memory)
}

// Option configures a Server.
type Option func(*config)

// WithStage sets the starting stage (default 1).
func WithStage(n uint64) Option { return func(c *config) { c.stage = n } }

// WithVIPAddress sets the vip module's address (0x-hex). The module is compiled for it unless
// it is the default, whose build is committed.
func WithVIPAddress(addr string) Option { return func(c *config) { c.vip = addr } }

// WithStageInterval sets a stage's length (default 14 days, as on Initia).
func WithStageInterval(d time.Duration) Option { return func(c *config) { c.interval = d } }

// WithDataDir keeps the L1's chain in dir (its stores, genesis, validator and the agent's
// and funded mnemonics, 0600); a dir that holds one resumes it, at the stage it had, with
// its bridges and snapshots: the genesis options (stage, bridges, interval, funded
// accounts, the vip address) apply to a new chain only.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithLogger sets the node's logger.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Server is the stand-in L1.
type Server struct {
	node  *minitia.Node
	c     *cosmostx.Client
	agent *cosmostx.Signer
	// agentKey signs as the agent (AgentKey).
	agentKey cryptotypes.PrivKey
	vip      movebcs.Address
}

// Start starts the L1 node on loopback ports, with the vip module at its genesis; ctx bounds
// the start, not the node's life (Close ends it).
func Start(ctx context.Context, opts ...Option) (_ *Server, err error) {
	c := config{stage: 1, vip: DefaultVIPAddress, interval: 14 * 24 * time.Hour, logger: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(&c)
	}
	if c.stage == 0 {
		return nil, errors.New("l1 stand-in: stage 0: VIP stages start at 1")
	}
	vipAddr, err := movebcs.ParseAddress(c.vip)
	if err != nil {
		return nil, fmt.Errorf("l1 stand-in vip address: %w", err)
	}
	code := movecontract.L1VIP()
	if vipAddr != movecontract.L1VIPAddress {
		comp, err := movevm.OpenCompiler(movevm.Dir())
		if err != nil {
			return nil, fmt.Errorf("l1 stand-in: %w", err)
		}
		if code, err = movecontract.CompileL1VIP(ctx, comp, vipAddr); err != nil {
			return nil, fmt.Errorf("l1 stand-in: build vip module for %s: %w", vipAddr.Short(), err)
		}
	}
	mnemonic, err := minitia.NewMnemonic()
	if err != nil {
		return nil, err
	}
	agent, err := minitia.DeriveAccount(mnemonic, vip.EthSecp256k1, "init")
	if err != nil {
		return nil, err
	}
	agentAddr := movebcs.AccountAddress(agent.Key.PubKey().Address())
	genesis := time.Now().UTC()
	calls := []movevm.Function{{
		Module: movevm.ModuleID{Address: vipAddr, Name: "vip"}, Function: "initialize",
		Args: [][]byte{movebcs.ArgU64(c.stage), movebcs.ArgU64(uint64(genesis.Unix())), movebcs.ArgU64(uint64(c.interval / time.Second)), agentAddr[:]},
	}}
	for _, b := range c.bridges {
		call, err := b.register(vipAddr)
		if err != nil {
			return nil, fmt.Errorf("l1 stand-in: %w", err)
		}
		calls = append(calls, call)
	}
	// The L1 is the same Cosmos SDK application as the Move rollups, answering as initiad.
	node, err := minitia.Start(ctx, minitia.Config{
		VM: vip.Move, ChainID: ChainID, KeyType: vip.EthSecp256k1,
		Mnemonics: append([]string{mnemonic}, c.funded...), GeneratedAccounts: -1, GenesisTime: genesis,
		AppName: "initia", Version: "v0.0.0-vipharness-l1-standin", NodeName: "initia", BinaryName: "initiad", TxGasPrices: true,
		Logger: c.logger, Home: c.dataDir, Persist: c.dataDir != "",
		// The L1's 0x1 is our framework (its public signatures are InitiaStdlib's), under
		// which the vip module is built.
		Move: []xmove.Option{xmove.WithFramework(movecontract.FrameworkBundle()), xmove.WithGenesisPackage(xmove.GenesisPackage{Owner: vipAddr, Modules: [][]byte{code}, Calls: calls})},
	})
	if err != nil {
		return nil, fmt.Errorf("l1 stand-in: %w", err)
	}
	// The agent is the first funded account: the one just made, or the kept chain's.
	agent = node.Funded()[0]
	s := &Server{node: node, vip: vipAddr, agentKey: agent.Key}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	enc, err := cosmostx.NewEncoding(node.Config().Bech32Prefix, initiamove.RegisterInterfaces)
	if err != nil {
		return nil, err
	}
	if s.c, err = cosmostx.New(node.RPCURL(), node.RESTURL(), node.ChainID(), enc, node.Config().MinGasPrices()[0]); err != nil {
		return nil, err
	}
	if s.agent, err = s.c.Signer(ctx, agent.Key); err != nil {
		return nil, fmt.Errorf("l1 stand-in agent: %w", err)
	}
	return s, nil
}

// Resumed reports whether the L1 resumed the chain its data dir kept (WithDataDir).
func (s *Server) Resumed() bool { return s.node.Resumed() }

// URL is the REST base URL.
func (s *Server) URL() string { return s.node.RESTURL() }

// RPCURL is the CometBFT RPC base URL.
func (s *Server) RPCURL() string { return s.node.RPCURL() }

// VIPAddress is the vip module's address, 0x and 64 hex digits.
func (s *Server) VIPAddress() string { return s.vip.String() }

// Stage reads the current stage through the vip module's get_stage view.
func (s *Server) Stage(ctx context.Context) (uint64, error) {
	var res initiamove.QueryViewJSONResponse
	req := &initiamove.QueryViewJSONRequest{Address: s.vip.Short(), ModuleName: "vip", FunctionName: "get_stage"}
	if err := s.c.Post(ctx, "/initia/move/v1/view/json", req, &res); err != nil {
		return 0, fmt.Errorf("read L1 stage: %w", err)
	}
	var st string
	if err := json.Unmarshal([]byte(res.Data), &st); err != nil {
		return 0, fmt.Errorf("read L1 stage: %q: %w", res.Data, err)
	}
	return strconv.ParseUint(st, 10, 64)
}

// call sends a signed MsgExecute of the vip module from the agent.
func (s *Server) call(ctx context.Context, fn string, args ...[]byte) error {
	_, err := s.c.Exec(ctx, s.agent, &initiamove.MsgExecute{Sender: s.agent.Address, ModuleAddress: s.vip.Short(), ModuleName: "vip", FunctionName: fn, Args: args})
	if err != nil {
		return fmt.Errorf("l1 stand-in %s: %w", fn, err)
	}
	return nil
}

// Set moves the L1 forward to stage n (a signed set_stage tx).
func (s *Server) Set(ctx context.Context, n uint64) error {
	return s.call(ctx, "set_stage", movebcs.ArgU64(n))
}

// Advance moves the L1 to the next stage (a signed advance_stage tx) and returns it.
func (s *Server) Advance(ctx context.Context) (uint64, error) {
	if err := s.call(ctx, "advance_stage"); err != nil {
		return 0, err
	}
	return s.Stage(ctx)
}

// AwaitSecondAfter waits until the L1 has committed a block in a later second than t. The
// vip module compares block times in whole seconds (a claim needs a block time after the
// snapshot's create_time plus the challenge period), and the chain's clock is its blocks',
// which fall behind the wall clock on a loaded machine: sleeping past a second is not enough.
func (s *Server) AwaitSecondAfter(ctx context.Context, t time.Time) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for s.node.BlockTime().Unix() <= t.Unix() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("l1 stand-in: wait for a block after %s (latest %s): %w", t.UTC().Format(time.RFC3339), s.node.BlockTime().UTC().Format(time.RFC3339), ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Close stops the node and releases the VM.
func (s *Server) Close() error { return s.node.Close() }
