// Package move deploys and operates the VIP score Move module (contracts/move) on a Move
// rollup through the shared Cosmos tx path (deployer/vm/cosmostx) and the shared push loop:
// x/move's MsgPublish and MsgExecute with BCS arguments, reads through Initia's Move REST
// routes (view functions, resources, table entries). Everything chain-specific (chain id,
// bech32 prefix, gas price, block limits) is read from the chain or given as options.
package move

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	movecontract "github.com/vipharness/vipharness/contracts/move"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

const (
	// ModuleName is the module every function call goes to.
	ModuleName = "vip_score"
	// DefaultMaxChunk caps the entries of one update_score_script tx when limits allow more.
	DefaultMaxChunk = 1000
	// SimulationGasLimit is Initia's DefaultContractSimulationGasLimit: a chunk is kept
	// small enough that the chain can still simulate it.
	SimulationGasLimit = 3_000_000
	// MaxArgBytes is x/move's limit on one argument.
	MaxArgBytes = 1_000_000
	// gasHeadroom (percent) covers the gap between simulated and delivered gas.
	gasHeadroom = 30
	// txOverhead bounds the bytes of an update_score_script tx besides its arguments.
	txOverhead = 1024
	// bytesPerEntry is one address (32) and one score (8) in BCS.
	bytesPerEntry = 40
	// pageSize is how many rows one get_scores view reads (the module's maximum).
	pageSize = 1000
)

// Contract is the VIP score module on one Move chain: the Cosmos half every Cosmos VM
// shares (cosmostx.Base) and the module's messages and reads.
type Contract struct {
	cosmostx.Base
	owner  *movebcs.Address // the module's address: the deployer's, once deployed or attached
	module []byte           // compiled for the deployer, if given (Config.Code)
	build  func(context.Context, [32]byte) ([]byte, error)
}

var (
	_ deployer.Contract = (*Contract)(nil)
	_ cosmostx.Messages = (*Contract)(nil)
)

// The Move driver connects to the rollup's CometBFT RPC and REST faces (cfg.CometRPC,
// cfg.REST). cfg.Code is a vip_score module compiled for the deployer, cfg.Move.Build
// (Builder) compiles one for it, cfg.Contract the address of a published one (0x-hex or
// bech32).
func init() {
	deployer.Register(cosmostx.Driver(Spec, initiamove.RegisterInterfaces, DecodeAbort, func(base cosmostx.Base, cfg deployer.Config) deployer.Contract {
		return &Contract{Base: base, module: cfg.Code, build: cfg.Move.Build}
	}))
}

// Attach makes addr (0x-hex, or a bech32 account) the module later
// calls go to.
func (s *Contract) Attach(addr string) error {
	if a, err := movebcs.ParseAddress(addr); err == nil {
		s.owner = &a
		return nil
	}
	a, err := s.accountAddress(addr)
	if err != nil {
		return fmt.Errorf("module address %q: %w: neither 0x-hex nor bech32", addr, vip.ErrBadAddress)
	}
	s.owner = &a
	return nil
}

// Contract is the module's address (0x-hex), or "" before Deploy.
func (s *Contract) Contract() string {
	if s.owner == nil {
		return ""
	}
	return s.owner.Short()
}

func (s *Contract) needModule() error {
	if s.owner == nil {
		return vip.ErrNoContract
	}
	return nil
}

// accountAddress is the Move address of a bech32 account.
func (s *Contract) accountAddress(addr string) (movebcs.Address, error) {
	_, bz, err := bech32.DecodeAndConvert(addr)
	if err != nil {
		return movebcs.Address{}, err
	}
	return movebcs.AccountAddress(bz), nil
}

func (s *Contract) call(sender, fn string, args ...[]byte) *initiamove.MsgExecute {
	return &initiamove.MsgExecute{Sender: sender, ModuleAddress: s.owner.Short(), ModuleName: ModuleName, FunctionName: fn, Args: args}
}

// Builder is c as a Config's Move.Build: vip_score compiled for the deployer's address. vipctl
// passes a movecontract.CommandCompiler, which keeps the native compiler out of its
// process. A nil compiler is no Build.
func Builder(c movecontract.Compiler) func(context.Context, [32]byte) ([]byte, error) {
	if c == nil {
		return nil
	}
	return func(ctx context.Context, addr [32]byte) ([]byte, error) {
		b, err := movecontract.Compile(ctx, c, movebcs.Address(addr))
		if err != nil {
			return nil, err
		}
		return b.VipScore, nil
	}
}

// moduleFor is vip_score built for the deployer's address (Config.Code, the committed
// artifact for the development deployer, else a fresh compile with Config.Move.Build), and
// refused when its compiler marked it unstable, as a real minimove would refuse it.
func (s *Contract) moduleFor(ctx context.Context, addr movebcs.Address) ([]byte, error) {
	code, err := s.buildFor(ctx, addr)
	if err != nil {
		return nil, err
	}
	if err := CheckStable(code); err != nil {
		return nil, err
	}
	return code, nil
}

func (s *Contract) buildFor(ctx context.Context, addr movebcs.Address) ([]byte, error) {
	if s.module != nil {
		return s.module, nil
	}
	if addr == movecontract.DevDeployer {
		return movecontract.Module(), nil
	}
	if s.build == nil {
		return nil, fmt.Errorf("vip_score must be compiled for the deployer %s (the committed module is built for %s): give a Move compiler (Config.Move.Build) or the compiled module (Config.Code)", addr.Short(), movecontract.DevDeployer.Short())
	}
	b, err := s.build(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("compile vip_score for %s: %w", addr.Short(), err)
	}
	return b, nil
}

// DeployChain publishes vip_score under the deployer's address and, in the same tx, makes
// the deployer and the operator deployers and sets the first stage: the module is never
// visible half set up. A vip_score module already under the deployer is found, read
// through REST, before anything is sent (a deployer can publish it once).
func (s *Contract) DeployChain(ctx context.Context) (deployer.Deploying, error) {
	dep, err := s.Deployer(ctx)
	if err != nil {
		return deployer.Deploying{}, err
	}
	owner, err := s.accountAddress(dep.Address)
	if err != nil {
		return deployer.Deploying{}, err
	}
	tx := s.DeployTx(dep, func(stage uint64) ([]sdk.Msg, string, error) { return s.deployMsgs(ctx, dep.Address, owner, stage) })
	return deployer.Deploying{Deployer: dep.Address, Chain: &deployChain{DeployTx: tx, s: s, owner: owner}}, nil
}

// deployMsgs are the publish of vip_score built for owner and its setup at stage.
func (s *Contract) deployMsgs(ctx context.Context, sender string, owner movebcs.Address, stage uint64) ([]sdk.Msg, string, error) {
	code, err := s.moduleFor(ctx, owner)
	if err != nil {
		return nil, "", err
	}
	writers := []string{sender}
	if op := s.OperatorAddress(); op != "" {
		writers = append(writers, op)
	}
	at := s.at(owner)
	msgs := []sdk.Msg{&initiamove.MsgPublish{Sender: sender, CodeBytes: [][]byte{code}, UpgradePolicy: initiamove.COMPATIBLE}}
	seen := map[string]bool{}
	for _, w := range writers {
		if seen[w] {
			continue
		}
		seen[w] = true
		a, err := s.accountAddress(w)
		if err != nil {
			return nil, "", err
		}
		msgs = append(msgs, at.call(sender, "add_deployer_script", a[:]))
	}
	msgs = append(msgs, at.call(sender, "set_init_stage", movebcs.ArgU64(stage)))
	return msgs, owner.Short(), nil
}

// at is a copy of s attached to the module under owner (s is left as it is).
func (s *Contract) at(owner movebcs.Address) *Contract {
	cp := *s
	cp.owner = &owner
	return &cp
}

// UpdateMsg is update_score_script of chunk's scores in stage, from sender.
func (s *Contract) UpdateMsg(sender string, stage uint64, chunk scores.Chunk) (sdk.Msg, error) {
	addrs := make([]movebcs.Address, chunk.Len())
	amounts := make([]uint64, chunk.Len())
	for i := range addrs {
		bz, amount := chunk.At(i)
		addrs[i], amounts[i] = movebcs.AccountAddress(bz), amount
	}
	return s.call(sender, "update_score_script", movebcs.ArgU64(stage), movebcs.ArgAddresses(addrs), movebcs.ArgU64s(amounts)), nil
}

// PrepareUpdate simulates update_score_script with 1 and with 50 new addresses on the live
// module (which also proves the operator may write to stage) and sizes chunks by the block
// gas limit, the simulation gas limit, the tx size limit and the argument limit.
func (s *Contract) PrepareUpdate(ctx context.Context, stage uint64, _ *scores.Set) (deployer.Update, error) {
	if err := s.needModule(); err != nil {
		return deployer.Update{}, err
	}
	return s.OperatorUpdate(ctx, stage, s, cosmostx.UpdateSpec{
		What: "simulate update_score_script", Headroom: gasHeadroom,
		GasCap: SimulationGasLimit, GasCapName: "contract simulation gas limit",
		Overhead: txOverhead, PerEntry: bytesPerEntry, MaxEntries: MaxArgBytes / 32, Cap: DefaultMaxChunk,
	})
}

// FinalizeStage finalizes stage (opening stage+1).
func (s *Contract) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	if err := s.needModule(); err != nil {
		return "", err
	}
	return s.Finalize(ctx, stage, s)
}

// FinalizeMsg is finalize_script of stage, from sender.
func (s *Contract) FinalizeMsg(sender string, stage uint64) (sdk.Msg, error) {
	return s.call(sender, "finalize_script", movebcs.ArgU64(stage)), nil
}

// FinalizeTx finds the tx whose FinalizedScoreEvent from this module names stage.
func (s *Contract) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if err := s.needModule(); err != nil {
		return "", err
	}
	tag := s.owner.Short() + "::" + ModuleName + "::FinalizedScoreEvent"
	want := strconv.FormatUint(stage, 10)
	return s.C.FindEventTx(ctx, fmt.Sprintf("move.type_tag='%s'", tag), "move", func(attr func(string) string) bool {
		if attr("type_tag") != tag {
			return false
		}
		var data struct {
			Stage json.RawMessage `json:"stage"`
		}
		if json.Unmarshal([]byte(attr("data")), &data) != nil {
			return false
		}
		var n string
		if json.Unmarshal(data.Stage, &n) != nil {
			n = string(data.Stage) // a bare number
		}
		return n == want
	})
}

// view calls a view function with BCS arguments and decodes its JSON value into out.
func (s *Contract) view(ctx context.Context, fn string, out any, args ...[]byte) error {
	if err := s.needModule(); err != nil {
		return err
	}
	var res initiamove.QueryViewResponse
	req := &initiamove.QueryViewRequest{Address: s.owner.Short(), ModuleName: ModuleName, FunctionName: fn, Args: args}
	if err := s.C.Post(ctx, "/initia/move/v1/view", req, &res); err != nil {
		return fmt.Errorf("view %s: %w", fn, DecodeAbort(err))
	}
	if err := json.Unmarshal([]byte(res.Data), out); err != nil {
		return fmt.Errorf("view %s: reply %q: %w", fn, res.Data, err)
	}
	return nil
}

// moduleStore is the module's ModuleStore resource, as JSON.
type moduleStore struct {
	InitStage string `json:"init_stage"`
	Stages    struct {
		Handle string `json:"handle"`
	} `json:"stages"`
}

func (s *Contract) store(ctx context.Context) (moduleStore, error) {
	if err := s.needModule(); err != nil {
		return moduleStore{}, err
	}
	tag := s.owner.Short() + "::" + ModuleName + "::ModuleStore"
	var res initiamove.QueryResourceResponse
	if err := s.C.Get(ctx, "/initia/move/v1/accounts/"+s.owner.Short()+"/resources/by_struct_tag?struct_tag="+tag, &res); err != nil {
		return moduleStore{}, fmt.Errorf("read %s: %w", tag, err)
	}
	var r struct {
		Data moduleStore `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Resource.MoveResource), &r); err != nil || r.Data.Stages.Handle == "" {
		return moduleStore{}, fmt.Errorf("read %s: %q is not a vip_score ModuleStore", tag, res.Resource.MoveResource)
	}
	return r.Data, nil
}

// StageInfo reads the stage's row of the module's stages table; a stage the module does not
// have is Exists false.
func (s *Contract) StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error) {
	ms, err := s.store(ctx)
	if err != nil {
		return vip.StageInfo{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	var res initiamove.QueryTableEntryResponse
	err = s.C.Get(ctx, "/initia/move/v1/tables/"+ms.Stages.Handle+"/entries/by_key_bytes?key_bytes="+url.QueryEscape(base64.StdEncoding.EncodeToString(movebcs.ArgU64(stage))), &res)
	if cosmostx.NotFound(err) {
		return vip.StageInfo{Stage: stage}, nil
	}
	if err != nil {
		return vip.StageInfo{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	var row struct {
		TotalScore  string `json:"total_score"`
		IsFinalized bool   `json:"is_finalized"`
	}
	if err := json.Unmarshal([]byte(res.TableEntry.Value), &row); err != nil {
		return vip.StageInfo{}, fmt.Errorf("read stage %d: row %q: %w", stage, res.TableEntry.Value, err)
	}
	total, err := strconv.ParseUint(row.TotalScore, 10, 64)
	if err != nil {
		return vip.StageInfo{}, fmt.Errorf("read stage %d: total score %q: %w", stage, row.TotalScore, err)
	}
	return vip.StageInfo{Stage: stage, TotalScore: total, Finalized: row.IsFinalized, Exists: true}, nil
}

// ScorePages pages through get_scores by start_after, in the module's order (descending address).
func (s *Contract) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	page := make([]scores.Row, 0, pageSize)
	return cosmostx.PageRows(stage, pageSize, func(after *movebcs.Address) ([]scores.Row, movebcs.Address, error) {
		var reply struct {
			Scores []struct {
				Addr  string `json:"addr"`
				Score string `json:"score"`
			} `json:"scores"`
		}
		var last movebcs.Address
		if err := s.view(ctx, "get_scores", &reply, movebcs.ArgU64(stage), movebcs.ArgU16(pageSize), movebcs.ArgOptionAddress(after)); err != nil {
			return nil, last, err
		}
		page = page[:0]
		for _, r := range reply.Scores {
			a, err := movebcs.ParseAddress(r.Addr)
			if err != nil {
				return nil, last, err
			}
			n, err := strconv.ParseUint(r.Score, 10, 64)
			if err != nil {
				return nil, last, fmt.Errorf("score %q of %s: %w", r.Score, r.Addr, err)
			}
			// the account's bytes, as the chain's bech32 codec decodes them
			page, last = append(page, scores.Row{Addr: a.AccountBytes(), Amount: n}), a
		}
		return page, last, nil
	}, each)
}

// InitStage reads the module's first stage from its ModuleStore.
func (s *Contract) InitStage(ctx context.Context) (uint64, error) {
	ms, err := s.store(ctx)
	if err != nil {
		return 0, err
	}
	st, err := strconv.ParseUint(ms.InitStage, 10, 64)
	if err != nil || st == 0 {
		return 0, fmt.Errorf("module %s has no initial stage set (init_stage %q)", s.owner.Short(), ms.InitStage)
	}
	return st, nil
}
