// Package wasm deploys and operates the VIP score CosmWasm contract (contracts/wasm) on a Wasm
// rollup through the shared Cosmos tx path (deployer/vm/cosmostx) and the shared push loop.
// Everything chain-specific (chain id, bech32 prefix, gas price, block limits) is read from
// the chain or given as options; nothing is assumed.
package wasm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/bindings/vipwasm"
	wasmcontract "github.com/vipharness/vipharness/contracts/wasm"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

const (
	// Label is the contract label given at instantiation.
	Label = "vip-score"
	// DefaultMaxChunk caps the entries of one update_scores tx when limits allow more: a
	// failed chunk then costs little to resend, and blocks stay small.
	DefaultMaxChunk = 1000
	// gasHeadroom (percent) covers the gap between simulated and delivered gas.
	gasHeadroom = 30
	// txOverhead bounds the bytes of an update_scores tx besides its score pairs: signer
	// info, signature, fee, sender and contract addresses and the JSON frame.
	txOverhead = 1024
	// pageSize is how many rows one get_scores query reads.
	pageSize = 1000
)

// Contract is the VIP score contract on one Wasm chain: the Cosmos half every Cosmos VM
// shares (cosmostx.Base) and the contract's messages and queries.
type Contract struct {
	cosmostx.Base
	contract string
	codeID   uint64 // the code stored or found, once deployed
	code     []byte
}

var (
	_ deployer.Contract = (*Contract)(nil)
	_ cosmostx.Messages = (*Contract)(nil)
)

// The Wasm driver connects to the rollup's CometBFT RPC and REST faces (cfg.CometRPC,
// cfg.REST); cfg.Code is a Wasm module to deploy instead of ours.
func init() {
	deployer.Register(cosmostx.Driver(Spec, wasmtypes.RegisterInterfaces, decodeContract, func(base cosmostx.Base, cfg deployer.Config) deployer.Contract {
		s := &Contract{Base: base, code: wasmcontract.Code()}
		if cfg.Code != nil {
			s.code = cfg.Code
		}
		return s
	}))
}

// Contract is the contract address, or "" before Deploy.
func (s *Contract) Contract() string { return s.contract }

// Attach makes addr (a bech32 contract address under the chain's prefix) the contract later
// calls go to.
func (s *Contract) Attach(addr string) error {
	canonical, err := scores.CheckBech32(s.C.Prefix())(addr)
	if err != nil {
		return fmt.Errorf("contract: %w: %w", vip.ErrBadAddress, err)
	}
	s.contract = canonical
	return nil
}

// CodeID is the code id stored or given, or 0.
func (s *Contract) CodeID() uint64 { return s.codeID }

func (s *Contract) needContract() error {
	if s.contract == "" {
		return vip.ErrNoContract
	}
	return nil
}

// DeployChain instantiates the contract with the deployer and the operator on its allow
// list and the deployer as its admin. The code is code already stored with the same
// checksum (by anyone), else stored now (PrepareDeploy). The chain assigns the contract's
// address at inclusion, so the journal learns it from the tx's events.
func (s *Contract) DeployChain(ctx context.Context) (deployer.Deploying, error) {
	dep, err := s.Deployer(ctx)
	if err != nil {
		return deployer.Deploying{}, err
	}
	allow := []string{dep.Address}
	if op := s.OperatorAddress(); op != "" && op != dep.Address {
		allow = append(allow, op)
	}
	msgs := func(stage uint64) ([]sdk.Msg, string, error) {
		init, err := json.Marshal(vipwasm.Instantiate{AllowList: allow, InitStage: stage})
		if err != nil {
			return nil, "", err
		}
		return []sdk.Msg{&wasmtypes.MsgInstantiateContract{Sender: dep.Address, Admin: dep.Address, CodeID: s.codeID, Label: Label, Msg: init}}, "", nil
	}
	return deployer.Deploying{Deployer: dep.Address, Chain: &deployChain{s: s, dep: dep, DeployTx: s.DeployTx(dep, msgs)}}, nil
}

// codesByChecksum are the code ids stored with code's checksum, oldest first, from the
// chain's list of codes (GET /cosmwasm/wasm/v1/code, every page).
func (s *Contract) codesByChecksum(ctx context.Context, code []byte) ([]uint64, error) {
	sum := sha256.Sum256(code)
	var found []uint64
	key := ""
	for {
		path := "/cosmwasm/wasm/v1/code?pagination.limit=100"
		if key != "" {
			path += "&pagination.key=" + url.QueryEscape(key)
		}
		var res wasmtypes.QueryCodesResponse
		if err := s.C.Get(ctx, path, &res); err != nil {
			return nil, fmt.Errorf("list stored codes: %w", err)
		}
		for _, ci := range res.CodeInfos {
			if bytes.Equal(ci.DataHash, sum[:]) {
				found = append(found, ci.CodeID)
			}
		}
		if res.Pagination == nil || len(res.Pagination.NextKey) == 0 {
			return found, nil
		}
		key = base64.StdEncoding.EncodeToString(res.Pagination.NextKey)
	}
}

// contractCode is the code id the contract at addr runs.
func (s *Contract) contractCode(ctx context.Context, addr string) (uint64, error) {
	var res wasmtypes.QueryContractInfoResponse
	if err := s.C.Get(ctx, "/cosmwasm/wasm/v1/contract/"+addr, &res); err != nil {
		return 0, fmt.Errorf("read contract info of %s: %w", addr, err)
	}
	return res.CodeID, nil
}

// storedCode reads the code id from a MsgStoreCode result and checks the stored checksum.
func storedCode(res *sdk.TxResponse, code []byte) (uint64, error) {
	ids := cosmostx.Attr(res, wasmtypes.EventTypeStoreCode, wasmtypes.AttributeKeyCodeID)
	if len(ids) != 1 {
		return 0, fmt.Errorf("%d code ids in its events, want 1", len(ids))
	}
	id, err := strconv.ParseUint(ids[0], 10, 64)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("code id %q is not a positive number", ids[0])
	}
	sum := sha256.Sum256(code)
	if got := cosmostx.Attr(res, wasmtypes.EventTypeStoreCode, wasmtypes.AttributeKeyChecksum); len(got) == 1 && !strings.EqualFold(got[0], hex.EncodeToString(sum[:])) {
		return 0, fmt.Errorf("chain stored checksum %s, the code's is %x", got[0], sum)
	}
	return id, nil
}

func updateMsg(sender, contract string, stage uint64, chunk []scores.Entry) (*wasmtypes.MsgExecuteContract, error) {
	pairs := make([]vipwasm.Score, len(chunk))
	for i, e := range chunk {
		pairs[i] = vipwasm.Score{Addr: e.Addr, Score: e.Amount}
	}
	return execMsg(sender, contract, vipwasm.Execute{UpdateScores: &vipwasm.UpdateScores{Stage: stage, Scores: pairs}})
}

func execMsg(sender, contract string, msg vipwasm.Execute) (*wasmtypes.MsgExecuteContract, error) {
	bz, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encode execute message: %w", err)
	}
	return &wasmtypes.MsgExecuteContract{Sender: sender, Contract: contract, Msg: bz}, nil
}

// PrepareUpdate simulates update_scores with 1 and with 50 new addresses on the live
// contract (which also proves the operator may write to stage) and sizes chunks by the
// chain's block gas limit and the tx size limit for these entries.
func (s *Contract) PrepareUpdate(ctx context.Context, stage uint64, canonical *scores.Set) (deployer.Update, error) {
	// ["addr",score], in the JSON message, for the longest address and score of the set
	perEntry := 0
	for _, w := range canonical.Widths() {
		perEntry = max(perEntry, len(canonical.Codec().Encode(make([]byte, w)))+len(strconv.FormatUint(canonical.MaxScore(), 10))+6)
	}
	return s.OperatorUpdate(ctx, stage, s, cosmostx.UpdateSpec{
		What: "simulate update_scores", Headroom: gasHeadroom,
		Overhead: txOverhead, PerEntry: perEntry, Cap: DefaultMaxChunk,
	})
}

// FinalizeStage finalizes stage (opening stage+1).
func (s *Contract) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	return s.Finalize(ctx, stage, s)
}

// UpdateMsg is update_scores of chunk's scores in stage, from sender.
func (s *Contract) UpdateMsg(sender string, stage uint64, chunk scores.Chunk) (sdk.Msg, error) {
	return updateMsg(sender, s.contract, stage, chunk.Entries())
}

// FinalizeMsg is finalize_stage of stage, from sender.
func (s *Contract) FinalizeMsg(sender string, stage uint64) (sdk.Msg, error) {
	return execMsg(sender, s.contract, vipwasm.Execute{FinalizeStage: &vipwasm.Stage{Stage: stage}})
}

// FinalizeTx finds the tx whose finalize-stage event (wasm-finalize-stage, emitted by this
// contract) names stage.
func (s *Contract) FinalizeTx(ctx context.Context, stage uint64) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	st := strconv.FormatUint(stage, 10)
	q := fmt.Sprintf("wasm-finalize-stage.stage='%s' AND wasm-finalize-stage._contract_address='%s'", st, s.contract)
	return s.C.FindEventTx(ctx, q, "wasm-finalize-stage", func(attr func(string) string) bool {
		return attr("_contract_address") == s.contract && attr("stage") == st
	})
}

func (s *Contract) query(ctx context.Context, q vipwasm.Query, out any) error {
	if err := s.needContract(); err != nil {
		return err
	}
	return decodeContract(Smart(ctx, s.C, s.contract, q, out))
}

// StageInfo reads get_stage_info; a stage the contract does not have is Exists false.
func (s *Contract) StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error) {
	var info vipwasm.StageInfo
	if err := s.query(ctx, vipwasm.Query{GetStageInfo: &vipwasm.Stage{Stage: stage}}, &info); err != nil {
		var ce *ContractError
		if errors.As(err, &ce) && ce.Reason() == StageNotFound {
			return vip.StageInfo{Stage: stage}, nil
		}
		return vip.StageInfo{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	return vip.StageInfo{Stage: stage, TotalScore: info.TotalScore, Finalized: info.IsFinalized, Exists: true}, nil
}

// ScorePages pages through get_scores by start_after, in the contract's address order.
func (s *Contract) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	codec := s.Codec()
	page := make([]scores.Row, 0, pageSize)
	return cosmostx.PageRows(stage, pageSize, func(after *string) ([]scores.Row, string, error) {
		var reply vipwasm.ScoresPage
		if err := s.query(ctx, vipwasm.Query{GetScores: &vipwasm.GetScores{Stage: stage, Limit: pageSize, StartAfter: after}}, &reply); err != nil {
			return nil, "", err
		}
		page = page[:0]
		last := ""
		for _, r := range reply.Scores {
			addr, err := codec.Decode(r.Addr)
			if err != nil {
				return nil, "", fmt.Errorf("row of %q: %w", r.Addr, err)
			}
			page, last = append(page, scores.Row{Addr: addr, Amount: r.Score}), r.Addr
		}
		return page, last, nil
	}, each)
}

// InitStage reads the contract's first stage from its storage.
func (s *Contract) InitStage(ctx context.Context) (uint64, error) {
	if err := s.needContract(); err != nil {
		return 0, err
	}
	raw, err := Raw(ctx, s.C, s.contract, vipwasm.InitStageKey)
	if err != nil {
		return 0, fmt.Errorf("read init_stage of %s: %w", s.contract, err)
	}
	st, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read init_stage of %s: %q is not a stage (is it a VIP score contract?)", s.contract, raw)
	}
	return st, nil
}
