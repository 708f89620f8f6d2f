package embedded

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/holiman/uint256"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/ethereum/go-ethereum/core/txpool/txorder"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
)

// sealer makes the embedded chain's blocks: it runs the pool's executable txs once on the
// head's state, as geth's miner does when it builds a payload, and writes the block with
// the state it computed, as geth's own import does, then makes it the head through the
// chain's SetCanonical, which announces it to every reader (the pool's reset, filters and
// subscriptions, the in-process indexer). geth's simulated beacon ran each block twice
// (the miner built it, then the engine API's newPayload imported it, executing it again)
// and waited on a payload builder with timers of its own.
type sealer struct {
	chain   *core.BlockChain
	db      ethdb.Database
	pool    *txpool.TxPool
	gasCeil uint64
	// sealed keeps each sealed block's receipts for the chain's readers (sealedReceipts).
	sealed *sealedReceipts
	signer types.Signer
	// lastTime is the newest block's timestamp; the next block's is not earlier.
	lastTime uint64
	// ahead is how far (seconds) AdjustTime has moved the chain's clock past the wall clock.
	ahead uint64
	// lag is told of each block before it is the head (WithReadLag).
	lag *lagClock
	// unflushed is the state roots of the sealed blocks whose trie nodes are still only in
	// the trie database's memory, where every reader finds them (flush).
	unflushed []common.Hash
}

// sealFlushSize bounds the trie nodes the sealed blocks hold in memory before flush.
const sealFlushSize = 32 << 20

// flush writes the trie nodes of the blocks sealed since the last flush to disk, each
// block's in turn (the archive keeps every block's state). A block's nodes were flushed as
// it was sealed; now the sealer flushes when the pool holds no executable tx, when the
// nodes reach sealFlushSize, and at Stop: a block's flush (walking its new nodes, writing
// them and filling the clean cache with them) was a tenth of the chain's CPU under a push,
// spent while the sender waited for the next block. A crash loses the state of the blocks
// sealed since the last flush; the chain then restarts from the newest block with state.
func (s *sealer) flush() error {
	for i, root := range s.unflushed {
		if err := s.chain.TrieDB().Commit(root, false); err != nil {
			s.unflushed = s.unflushed[i:]
			return fmt.Errorf("flush the state of a sealed block: %w", err)
		}
	}
	s.unflushed = s.unflushed[:0]
	return nil
}

// sealBlockSize is the RLP size the sealer keeps a block under: Osaka's cap (EIP-7934), less
// the margin geth's miner leaves for the header and withdrawals.
const sealBlockSize = params.MaxBlockSize - 1_000_000

func newSealer(chain *core.BlockChain, db ethdb.Database, pool *txpool.TxPool, gasCeil uint64, sealed *sealedReceipts) (*sealer, error) {
	head := chain.CurrentBlock()
	cfg := chain.Config()
	if !cfg.IsPostMerge(head.Number.Uint64()+1, head.Time+1) {
		return nil, errors.New("evm sealer: the chain config is not post-merge")
	}
	if cfg.AmsterdamTime != nil || cfg.BogotaTime != nil {
		return nil, errors.New("evm sealer: Amsterdam and Bogota (block access lists, slot numbers, state gas) are not sealed here; OsakaRules disables them")
	}
	// The chain starts in proof of stake with its genesis safe and final, as the beacon's
	// first forkchoice update made it.
	if genesis := chain.GetHeaderByNumber(0); genesis != nil && head.Number.Sign() == 0 {
		chain.SetFinalized(genesis)
		chain.SetSafe(genesis)
	}
	return &sealer{chain: chain, db: db, pool: pool, gasCeil: gasCeil, sealed: sealed, signer: types.LatestSigner(cfg), lastTime: head.Time}, nil
}

// now is the chain's clock: the wall clock's second, plus what AdjustTime moved it.
func (s *sealer) now() uint64 { return uint64(time.Now().Unix()) + s.ahead }

// seal builds a block at timestamp (raised to the newest block's when earlier: as a minievm
// block carries CometBFT's time in seconds, blocks of the same second share it) with the
// pool's executable txs, writes it with its state and makes it the head. A
// block that would take no tx is written only when empty is set (a clock jump); otherwise
// seal returns nil.
func (s *sealer) seal(ctx context.Context, timestamp uint64, empty bool) (*types.Block, error) {
	bc, cfg := s.chain, s.chain.Config()
	parent := bc.CurrentBlock()
	timestamp = max(timestamp, parent.Time, s.lastTime)
	header := &types.Header{
		ParentHash: parent.Hash(),
		Number:     new(big.Int).Add(parent.Number, common.Big1),
		GasLimit:   core.CalcGasLimit(parent.GasLimit, s.gasCeil),
		Time:       timestamp,
		// The base fee never moves (see EVMMinGasPrice): a minievm's blocks all show the
		// minimum gas price; geth's rule would lower it with every block under half full.
		BaseFee: new(big.Int).Set(parent.BaseFee),
	}
	// prevrandao is random per block, as the simulated beacon made it.
	if _, err := rand.Read(header.MixDigest[:]); err != nil {
		return nil, fmt.Errorf("seal block %d: prevrandao: %w", header.Number, err)
	}
	if err := bc.Engine().Prepare(bc, header); err != nil {
		return nil, fmt.Errorf("seal block %d: prepare header: %w", header.Number, err)
	}
	// The header is Shanghai-shaped, as a minievm's (its indexer's coretypes.Header): no blob
	// gas, beacon root or requests hash, though the EVM runs Osaka's rules. Its hash, the RLP
	// hash of the fields it has, is then the one a client recomputes from a minievm-shaped
	// reply.
	statedb, err := bc.StateAtForkBoundary(parent, header)
	if err != nil {
		return nil, fmt.Errorf("seal block %d: state of block %d: %w", header.Number, parent.Number, err)
	}
	coinbase := header.Coinbase
	blockCtx := core.NewEVMBlockContext(header, bc, &coinbase)
	blockCtx.BlobBaseFee = new(big.Int) // BLOBBASEFEE is 0, as in minievm's block context
	evm := vm.NewEVM(blockCtx, statedb, cfg, vm.Config{})
	evm.SetJumpDestCache(bc.JumpDestCache())
	evm.SetPrecompileCache(bc.PrecompileCache())
	defer evm.Release()
	// The system calls are geth's state processor's for this header (evm_test.go runs each
	// sealed block through it): no beacon root to store, the parent's hash (EIP-2935).
	core.PreExecution(ctx, header.ParentBeaconRoot, parent, cfg, evm, header.Number, header.Time)

	// The pool's executable txs, by price and nonce, as the miner takes them; a tx that
	// fails drops its sender's later txs from this block (their nonces would not follow).
	filter := txpool.PendingFilter{MinTip: new(uint256.Int), BaseFee: uint256.MustFromBig(header.BaseFee)}
	if cfg.IsOsaka(header.Number, header.Time) {
		filter.GasLimitCap = params.MaxTxGas
	}
	pending, _ := s.pool.Pending(filter)
	signer := types.MakeSigner(cfg, header.Number, header.Time)
	order := txorder.NewTransactionsByPriceAndNonce(signer, pending, header.BaseFee)
	var (
		gasPool  = core.NewGasPool(header.GasLimit)
		txs      []*types.Transaction
		receipts []*types.Receipt
		logs     []*types.Log
		size     = uint64(header.Size())
	)
	for {
		ltx, _ := order.Peek()
		if ltx == nil || gasPool.Available(false) < params.TxGas {
			break
		}
		if gasPool.Available(false) < ltx.Gas {
			order.Pop()
			continue
		}
		tx := ltx.Resolve()
		if tx == nil { // evicted meanwhile
			order.Pop()
			continue
		}
		if size+tx.Size() >= sealBlockSize {
			break
		}
		statedb.SetTxContext(tx.Hash(), len(txs), uint32(len(txs)+1))
		snap, gasSnap := statedb.Snapshot(), gasPool.Snapshot()
		receipt, _, err := core.ApplyTransaction(ctx, evm, gasPool, statedb, header, tx)
		switch {
		case err == nil:
			header.GasUsed = gasPool.Used()
			txs, receipts = append(txs, tx), append(receipts, receipt)
			logs = append(logs, receipt.Logs...)
			size += tx.Size()
			order.Shift()
		case errors.Is(err, core.ErrNonceTooLow): // the pool has not yet seen the block that took it
			statedb.RevertToSnapshot(snap)
			gasPool.Set(gasSnap)
			order.Shift()
		default:
			statedb.RevertToSnapshot(snap)
			gasPool.Set(gasSnap)
			order.Pop()
		}
	}
	if len(txs) == 0 && !empty {
		return nil, nil
	}
	body := types.Body{Transactions: txs, Withdrawals: types.Withdrawals{}}
	if _, _, err := core.PostExecution(ctx, cfg, header.Number, header.Time, logs, body.Withdrawals, evm, uint32(len(txs)+1)); err != nil {
		return nil, fmt.Errorf("seal block %d: system calls after the txs: %w", header.Number, err)
	}
	bc.Engine().Finalize(bc, header, statedb, &body)
	block := core.AssembleBlock(bc, header, statedb, &body, receipts, nil)
	if err := statedb.Error(); err != nil {
		return nil, fmt.Errorf("seal block %d: read state: %w", header.Number, err)
	}
	if err := s.write(block, receipts, statedb); err != nil {
		return nil, err
	}
	s.lastTime = block.Time()
	return block, nil
}

// write stores the block, its receipts and its state (the hash-scheme archive: every
// block's trie nodes go to disk, as geth's import does with NoPruning, in flush), then makes
// the block the head through SetCanonical, which emits the chain, log and head events.
func (s *sealer) write(block *types.Block, receipts []*types.Receipt, statedb interface {
	Commit(params.Rules, uint64) (common.Hash, error)
	Preimages() map[common.Hash][]byte
}) error {
	bc, n := s.chain, block.NumberU64()
	batch := s.db.NewBatch()
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), n, receipts)
	rawdb.WritePreimages(batch, statedb.Preimages())
	if err := batch.Write(); err != nil {
		return fmt.Errorf("seal block %d: write it: %w", n, err)
	}
	rules := bc.Config().Rules(block.Number(), true, block.Time())
	root, err := statedb.Commit(rules, n)
	if err != nil {
		return fmt.Errorf("seal block %d: commit its state: %w", n, err)
	}
	s.unflushed = append(s.unflushed, root)
	if _, nodes, _ := bc.TrieDB().Size(); nodes > sealFlushSize {
		if err := s.flush(); err != nil {
			return fmt.Errorf("seal block %d: %w", n, err)
		}
	}
	// Kept before the block is the head, so that no reader of the new head misses them.
	s.sealed.add(block, receipts, s.signer)
	s.lag.mark(n)
	if _, err := bc.SetCanonical(block); err != nil {
		return fmt.Errorf("seal block %d: make it the head: %w", n, err)
	}
	// Safe at once and final at each 32-block epoch, as the simulated beacon marked them.
	bc.SetSafe(block.Header())
	final := n / 32 * 32
	if h := bc.GetHeaderByNumber(final); h != nil {
		bc.SetFinalized(h)
	}
	return nil
}
