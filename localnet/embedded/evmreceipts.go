package embedded

import (
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// sealedReceipts keeps the receipts of the newest sealed blocks, with the fields a node
// derives when it reads a receipt back (block hash, effective gas price, log positions) set
// once from what the sealer computed. A score chunk's receipt holds hundreds of logs, and
// every read of it from the database decodes them all and hashes each into a bloom again:
// the sender's receipt lookups and the in-process indexer did that for every block, on the
// cores the sealer needs.
type sealedReceipts struct {
	mu     sync.Mutex
	blocks []sealedBlock // oldest first
	byHash map[common.Hash]sealedBlock
	byTx   map[common.Hash]txAt
	logs   int // logs held
}

type sealedBlock struct {
	block    *types.Block
	receipts types.Receipts
	logs     int
}

type txAt struct {
	block *types.Block
	index int
}

// sealedLogsKept bounds what sealedReceipts holds (the newest block always stays): ~70
// score chunks, a few MB, far more than a sender keeps in flight.
const sealedLogsKept = 1 << 15

func newSealedReceipts() *sealedReceipts {
	return &sealedReceipts{byHash: map[common.Hash]sealedBlock{}, byTx: map[common.Hash]txAt{}}
}

// add keeps block's receipts, as the sealer computed them (their blooms included), with the
// fields a read from the database derives.
func (c *sealedReceipts) add(block *types.Block, receipts types.Receipts, signer types.Signer) {
	hash, number, txs := block.Hash(), block.NumberU64(), block.Transactions()
	var logIndex uint
	logs := 0
	for i, r := range receipts {
		tx := txs[i]
		r.Type, r.TxHash = tx.Type(), tx.Hash()
		r.EffectiveGasPrice = effectiveGasPrice(tx, block.BaseFee())
		r.BlockHash, r.BlockNumber, r.TransactionIndex = hash, new(big.Int).SetUint64(number), uint(i)
		r.ContractAddress = common.Address{}
		if tx.To() == nil {
			from, _ := types.Sender(signer, tx)
			r.ContractAddress = crypto.CreateAddress(from, tx.Nonce())
		}
		if r.Logs == nil {
			r.Logs = []*types.Log{} // as a receipt read back has them
		}
		for _, l := range r.Logs {
			l.BlockNumber, l.BlockHash, l.BlockTimestamp = number, hash, block.Time()
			l.TxHash, l.TxIndex, l.Index = r.TxHash, uint(i), logIndex
			logIndex++
		}
		logs += len(r.Logs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	sb := sealedBlock{block: block, receipts: receipts, logs: logs}
	c.blocks = append(c.blocks, sb)
	c.byHash[hash] = sb
	for i, tx := range txs {
		c.byTx[tx.Hash()] = txAt{block: block, index: i}
	}
	c.logs += logs
	for len(c.blocks) > 1 && c.logs > sealedLogsKept {
		old := c.blocks[0]
		c.blocks = c.blocks[1:]
		c.logs -= old.logs
		delete(c.byHash, old.block.Hash())
		for _, tx := range old.block.Transactions() {
			if at, ok := c.byTx[tx.Hash()]; ok && at.block == old.block {
				delete(c.byTx, tx.Hash())
			}
		}
	}
}

// receipts is the kept receipts of the block with hash, if it is one of the newest sealed.
func (c *sealedReceipts) receipts(hash common.Hash) (types.Receipts, bool) {
	sb, ok := c.block(hash)
	return sb.receipts, ok
}

// block is the kept block with hash, if it is one of the newest sealed.
func (c *sealedReceipts) block(hash common.Hash) (sealedBlock, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sb, ok := c.byHash[hash]
	return sb, ok
}

// tx is the kept block holding tx hash, and the tx's position in it.
func (c *sealedReceipts) tx(hash common.Hash) (sealedBlock, int, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.byTx[hash]
	if !ok {
		return sealedBlock{}, 0, false
	}
	return c.byHash[at.block.Hash()], at.index, true
}

// effectiveGasPrice is what a tx paid per gas in a block with baseFee: its gas price, or
// for a fee-market tx the base fee plus its tip, at most its fee cap.
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	if baseFee == nil {
		return new(big.Int).Set(tx.GasPrice())
	}
	price := new(big.Int).Add(baseFee, tx.GasTipCap())
	if cap := tx.GasFeeCap(); price.Cmp(cap) > 0 {
		price.Set(cap)
	}
	return price
}

// receiptFields is a kept receipt in the fields of go-ethereum's eth_getTransactionReceipt
// (internal/ethapi's MarshalReceipt), for encodeReceipt.
func receiptFields(sb sealedBlock, i int, signer types.Signer) map[string]interface{} {
	r, tx := sb.receipts[i], sb.block.Transactions()[i]
	from, _ := types.Sender(signer, tx)
	fields := map[string]interface{}{
		"blockHash":         r.BlockHash,
		"blockNumber":       hexutil.Uint64(sb.block.NumberU64()),
		"transactionHash":   r.TxHash,
		"transactionIndex":  hexutil.Uint64(i),
		"from":              from,
		"to":                tx.To(),
		"gasUsed":           hexutil.Uint64(r.GasUsed),
		"cumulativeGasUsed": hexutil.Uint64(r.CumulativeGasUsed),
		"contractAddress":   nil,
		"logs":              r.Logs,
		"logsBloom":         r.Bloom,
		"type":              hexutil.Uint(tx.Type()),
		"effectiveGasPrice": (*hexutil.Big)(r.EffectiveGasPrice),
	}
	if len(r.PostState) > 0 {
		fields["root"] = hexutil.Bytes(r.PostState)
	} else {
		fields["status"] = hexutil.Uint(r.Status)
	}
	if r.Logs == nil {
		fields["logs"] = []*types.Log{}
	}
	if tx.Type() == types.BlobTxType {
		fields["blobGasUsed"] = hexutil.Uint64(r.BlobGasUsed)
		fields["blobGasPrice"] = (*hexutil.Big)(r.BlobGasPrice)
	}
	if r.ContractAddress != (common.Address{}) {
		fields["contractAddress"] = r.ContractAddress
	}
	return fields
}

// SealedChain is the embedded EVM rollup's chain for readers in this process (the indexer
// stand-in's gethsource): go-ethereum's BlockChain, whose newest blocks and their receipts
// come from what the sealer kept instead of the database.
type SealedChain struct {
	*core.BlockChain
	sealed *sealedReceipts
}

// GetReceiptsByHash is the receipts of the block with hash.
func (c SealedChain) GetReceiptsByHash(hash common.Hash) types.Receipts {
	if rs, ok := c.sealed.receipts(hash); ok {
		return rs
	}
	return c.BlockChain.GetReceiptsByHash(hash)
}

// GetBlockByHash is the block with hash.
func (c SealedChain) GetBlockByHash(hash common.Hash) *types.Block {
	if sb, ok := c.sealed.block(hash); ok {
		return sb.block
	}
	return c.BlockChain.GetBlockByHash(hash)
}
