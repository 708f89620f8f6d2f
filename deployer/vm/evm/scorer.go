// Package evm deploys and operates the Solidity VipScore contract on an EVM rollup through
// go-ethereum's JSON-RPC client and the abigen binding in bindings/vipscore.
package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
)

// MaxTxGas is the per-transaction gas cap of Osaka (EIP-7825).
const MaxTxGas = 1 << 24

// gasHeadroom (percent) covers eth_estimateGas's own error on top of the fitted model.
const gasHeadroom = 20

// pageSize is how many rows one getScores call reads.
const pageSize = 1000

// Contract is the VipScore contract on one EVM chain.
type Contract struct {
	client   *ethnode.Client
	chainID  *big.Int
	binding  *vipscore.VipScore
	abi      *abi.ABI
	contract common.Address
	code     []byte // creation code to deploy instead of the embedded build (Config.Code)

	deployerKey keys.Signer
	operatorKey keys.Signer
	k           deployer.PushConfig
}

var _ deployer.Contract = (*Contract)(nil)

// The EVM driver connects to the rollup's JSON-RPC endpoint (cfg.JSONRPC).
func init() {
	deployer.Register(deployer.Driver{Spec: Spec, Dial: func(ctx context.Context, cfg deployer.Config) (deployer.Contract, error) {
		return dialContract(ctx, cfg)
	}})
}

// dialContract dials the VM's Contract (Dial's half without the shared flow) with a
// validated cfg.
func dialContract(ctx context.Context, cfg deployer.Config) (*Contract, error) {
	if cfg.JSONRPC == "" {
		return nil, &deployer.ConfigError{Field: "JSONRPC", Value: `""`, Err: errors.New("an EVM rollup needs its JSON-RPC URL")}
	}
	client, err := ethnode.Dial(ctx, cfg.JSONRPC)
	if err != nil {
		return nil, err
	}
	chainID, err := client.ChainID(ctx)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("read chain id from %s: %w", cfg.JSONRPC, err)
	}
	b := vipscore.NewVipScore()
	parsed := b.GetABI()
	return &Contract{
		client: client, chainID: chainID, binding: b, abi: &parsed, k: cfg.Push,
		code: cfg.Code, deployerKey: cfg.Deployer, operatorKey: cfg.Operator,
	}, nil
}

// Close closes the RPC connection.
func (s *Contract) Close() { s.client.Close() }

// VM is vip.EVM.
func (s *Contract) VM() vip.VM { return vip.EVM }

// ChainID is the chain id the RPC reported, in decimal (as Deployment.ChainID).
func (s *Contract) ChainID() string { return s.chainID.String() }

// Bech32Prefix is "": an EVM rollup's accounts are 0x addresses.
func (s *Contract) Bech32Prefix() string { return "" }

// Attach makes addr (a 0x address) the contract later calls go to.
func (s *Contract) Attach(addr string) error {
	if !common.IsHexAddress(addr) {
		return fmt.Errorf("contract %q: %w: not a 0x address", addr, vip.ErrBadAddress)
	}
	s.contract = common.HexToAddress(addr)
	return nil
}

// Contract is the contract address, or "" before Deploy.
func (s *Contract) Contract() string {
	if s.contract == (common.Address{}) {
		return ""
	}
	return s.contract.Hex()
}

// Codec is 0x-hex, EIP-55 checksummed.
func (s *Contract) Codec() scores.Codec { return scores.EVMCodec{} }

func (s *Contract) needContract() error {
	if s.contract == (common.Address{}) {
		return vip.ErrNoContract
	}
	return nil
}

func (s *Contract) needKey(k keys.Signer, role string) error {
	if k == nil {
		return &vip.MissingKeyError{Role: role}
	}
	return nil
}

// DeployChain is the deployer's contract creation, whose address (sender and nonce) is
// journaled before it is broadcast; the deployer key becomes the first allow-listed account.
func (s *Contract) DeployChain(context.Context) (deployer.Deploying, error) {
	if err := s.needKey(s.deployerKey, "deployer"); err != nil {
		return deployer.Deploying{}, err
	}
	from := s.deployerKey.Address()
	return deployer.Deploying{Deployer: from.Hex(), Chain: &deployChain{s: s, key: s.deployerKey, from: from}}, nil
}

// sendAndWait signs, simulates, sends and waits for one tx; a revert in simulation is
// returned decoded, and nothing is sent.
func (s *Contract) sendAndWait(ctx context.Context, key keys.Signer, to *common.Address, data []byte) (*types.Transaction, *types.Receipt, error) {
	return s.sendValueAndWait(ctx, key, to, data, nil)
}

// sendValueAndWait is sendAndWait of a tx that also carries value (nil: none).
func (s *Contract) sendValueAndWait(ctx context.Context, key keys.Signer, to *common.Address, data []byte, value *big.Int) (*types.Transaction, *types.Receipt, error) {
	from := key.Address()
	gas, err := s.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Data: data, Value: value})
	if err != nil {
		return nil, nil, s.revertOf(ctx, from, to, data, err)
	}
	nonce, err := s.client.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, nil, fmt.Errorf("read nonce: %w", err)
	}
	tip, feeCap, err := s.fees(ctx)
	if err != nil {
		return nil, nil, err
	}
	tx, err := key.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: s.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: min(gas*6/5, MaxTxGas), To: to, Data: data, Value: value,
	}), s.chainID)
	if err != nil {
		return nil, nil, fmt.Errorf("sign: %w", err)
	}
	if err := s.client.SendTransaction(ctx, tx); err != nil {
		return nil, nil, fmt.Errorf("send: %w", err)
	}
	for {
		out, err := s.lookup(ctx, tx.Hash())
		if err != nil {
			return tx, nil, err
		}
		if out.Found {
			if !out.Success {
				return tx, nil, fmt.Errorf("tx %s: %w", tx.Hash().Hex(), out.Err)
			}
			rc, err := s.client.TransactionReceipt(ctx, tx.Hash())
			return tx, rc, err
		}
		select {
		case <-ctx.Done():
			return tx, nil, fmt.Errorf("wait for tx %s: %w", tx.Hash().Hex(), ctx.Err())
		case <-time.After(s.k.Poll):
		}
	}
}

func (s *Contract) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	tip, feeCap, _, err = s.feesAndHead(ctx)
	return tip, feeCap, err
}

// feesAndHead is fees and the head block they were read at, the two asked at once.
func (s *Contract) feesAndHead(ctx context.Context) (tip, feeCap *big.Int, head *types.Header, err error) {
	var tipErr error
	var wg sync.WaitGroup
	wg.Go(func() { tip, tipErr = s.client.SuggestGasTipCap(ctx) })
	head, err = s.client.HeaderByNumber(ctx, nil)
	wg.Wait()
	if tipErr != nil {
		return nil, nil, nil, fmt.Errorf("suggest gas tip: %w", tipErr)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read head: %w", err)
	}
	feeCap = new(big.Int).Set(tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	}
	return tip, feeCap, head, nil
}

// JournalChain is "evm-<chain id>".
func (s *Contract) JournalChain() string { return "evm-" + s.chainID.String() }

// PrepareUpdate estimates updateScores for 1 and for 50 new addresses on the live contract
// (which also proves the operator may write to stage) and sizes chunks by the per-tx gas
// cap.
func (s *Contract) PrepareUpdate(ctx context.Context, stage uint64, _ *scores.Set) (deployer.Update, error) {
	if err := s.needKey(s.operatorKey, "operator"); err != nil {
		return deployer.Update{}, err
	}
	from := s.operatorKey.Address()
	if err := s.checkStuckNonce(ctx, from); err != nil {
		return deployer.Update{}, fmt.Errorf("update scores stage %d: %w", stage, err)
	}
	// The fees and the block gas limit are read while the update is estimated.
	var tip, feeCap *big.Int
	var head *types.Header
	var headErr error
	var wg sync.WaitGroup
	wg.Go(func() { tip, feeCap, head, headErr = s.feesAndHead(ctx) })
	cost, err := deployer.Measure(stage, "estimate updateScores", gasHeadroom, func(k int) (uint64, error) {
		addrs := make([]common.Address, k)
		amounts := make([]uint64, k)
		for i := range addrs {
			// Score 0: a stage at the limit of its total would refuse any other score.
			addrs[i], amounts[i] = probeAddress(i), 0
		}
		data, err := s.binding.TryPackUpdateScores(stage, addrs, amounts)
		if err != nil {
			return 0, err
		}
		to := s.contract
		g, err := s.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Data: data})
		if err != nil {
			return 0, s.revertOf(ctx, from, &to, data, err)
		}
		return g, nil
	})
	wg.Wait()
	if err != nil {
		return deployer.Update{}, err
	}
	if headErr != nil {
		return deployer.Update{}, headErr
	}
	// The most gas one tx may use: the Osaka cap or the block limit if lower.
	txCap := min(uint64(MaxTxGas), head.GasLimit)
	pc := &pushChain{s: s, key: s.operatorKey, from: from, cost: cost, tip: tip, feeCap: feeCap, txGasOK: txCap}
	return deployer.Update{Chain: pc, Fits: cost.MaxEntries(txCap),
		Limit: fmt.Sprintf("tx gas cap %d (~%d gas per entry)", txCap, cost.PerEntry),
		Gas:   func(n int) uint64 { return cost.Limit(n, txCap) }}, nil
}

// FinalizeStage finalizes stage (opening stage+1).
func (s *Contract) FinalizeStage(ctx context.Context, stage uint64) (string, error) {
	if err := s.needContract(); err != nil {
		return "", err
	}
	if err := s.needKey(s.operatorKey, "operator"); err != nil {
		return "", err
	}
	data, err := s.binding.TryPackFinalizeStage(stage)
	if err != nil {
		return "", fmt.Errorf("finalize stage %d: %w", stage, err)
	}
	if err := s.checkStuckNonce(ctx, s.operatorKey.Address()); err != nil {
		return "", fmt.Errorf("finalize stage %d: %w", stage, err)
	}
	to := s.contract
	tx, _, err := s.sendAndWait(ctx, s.operatorKey, &to, data)
	if err != nil {
		return "", fmt.Errorf("finalize stage %d: %w", stage, err)
	}
	// The finalize is mined and stands; a state that does not show it is named, and the
	// reads after it (the open stage) report what they find.
	if err := s.settleFinalize(ctx, stage, s.operatorKey.Address(), tx.Nonce()); err != nil && ctx.Err() == nil && s.k.Logger != nil {
		s.k.Logger.Warn("the chain's state does not show the mined finalize yet", "stage", stage, "tx", tx.Hash().Hex(), "err", err)
	}
	return tx.Hash().Hex(), nil
}

func (s *Contract) call(ctx context.Context, data []byte) ([]byte, error) {
	to := s.contract
	out, err := s.client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	return out, decodeRevert(s.abi, err)
}

// StageInfo reads stages(stage).
func (s *Contract) StageInfo(ctx context.Context, stage uint64) (vip.StageInfo, error) {
	if err := s.needContract(); err != nil {
		return vip.StageInfo{}, err
	}
	out, err := s.call(ctx, s.binding.PackStages(stage))
	if err != nil {
		return vip.StageInfo{}, fmt.Errorf("read stage %d: %w", stage, err)
	}
	st, err := s.binding.UnpackStages(out)
	if err != nil {
		return vip.StageInfo{}, fmt.Errorf("decode stage %d: %w", stage, err)
	}
	return vip.StageInfo{Stage: stage, TotalScore: st.TotalScore, Finalized: st.IsFinalized, Exists: st.Stage == stage}, nil
}

// ScorePages pages through getScores. The contract pads a page to its limit with zero rows (as
// the official one does), so a zero address, or a short page, ends the list.
func (s *Contract) ScorePages(ctx context.Context, stage uint64, each func([]scores.Row) error) error {
	if err := s.needContract(); err != nil {
		return err
	}
	page := make([]scores.Row, 0, pageSize)
	for offset := uint64(0); ; offset += pageSize {
		out, err := s.call(ctx, s.binding.PackGetScores(stage, offset, pageSize))
		if err != nil {
			return fmt.Errorf("read scores stage %d offset %d: %w", stage, offset, err)
		}
		rows, err := s.binding.UnpackGetScores(out)
		if err != nil {
			return fmt.Errorf("decode scores stage %d offset %d: %w", stage, offset, err)
		}
		page = page[:0]
		end := len(rows) < pageSize
		for _, r := range rows {
			if r.Addr == (common.Address{}) {
				end = true
				break
			}
			page = append(page, scores.Row{Addr: r.Addr.Bytes(), Amount: r.Amount})
		}
		if err := each(page); err != nil || end {
			return err
		}
	}
}

// InitStage reads initStage().
func (s *Contract) InitStage(ctx context.Context) (uint64, error) {
	if err := s.needContract(); err != nil {
		return 0, err
	}
	out, err := s.call(ctx, s.binding.PackInitStage())
	if err != nil {
		return 0, fmt.Errorf("read initStage: %w", err)
	}
	st, err := s.binding.UnpackInitStage(out)
	if err != nil {
		return 0, fmt.Errorf("decode initStage: %w", err)
	}
	return st, nil
}
