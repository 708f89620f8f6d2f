package indexer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

// MemTx describes one transaction of a MemChain block.
type MemTx struct {
	From    common.Address
	To      *common.Address // nil: a contract creation at a derived address
	Logs    []MemLog
	Failed  bool   // status 0
	GasUsed uint64 // default 21000
}

// MemLog is one log of a MemTx.
type MemLog struct {
	Address common.Address
	Topics  []common.Hash
	Data    []byte
}

type memBlock struct {
	header   Header
	receipts []api.EVMTx
}

// MemChain is an in-memory Source: a chain whose blocks the caller appends and whose head
// it can set back, so tests can reorganise it at any depth. Hashes are deterministic for a
// given sequence of calls; blocks built after SetHead differ from the ones they replace.
type MemChain struct {
	mu     sync.Mutex
	blocks []memBlock // blocks[0] is genesis
	byHash map[common.Hash][]api.EVMTx
	forks  uint64 // SetHead count, mixed into hashes
	fail   int    // the next fail calls return errFault
}

var errFault = errors.New("memchain: injected fault")

// NewMemChain returns a chain holding only a genesis block.
func NewMemChain() *MemChain {
	m := &MemChain{byHash: map[common.Hash][]api.EVMTx{}}
	m.blocks = []memBlock{{header: Header{Number: 0, Hash: crypto.Keccak256Hash([]byte("memchain genesis"))}}}
	return m
}

// AddBlock appends a block with txs and returns its header.
func (m *MemChain) AddBlock(txs ...MemTx) Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	parent := m.blocks[len(m.blocks)-1].header
	n := parent.Number + 1
	var salt [24]byte
	binary.BigEndian.PutUint64(salt[:8], n)
	binary.BigEndian.PutUint64(salt[8:16], m.forks)
	binary.BigEndian.PutUint64(salt[16:], uint64(len(txs)))
	h := Header{Number: n, ParentHash: parent.Hash, Hash: crypto.Keccak256Hash(parent.Hash[:], salt[:])}
	blockHash, blockNum := h.Hash.Hex(), hexutil.EncodeUint64(n)
	var cumulative uint64
	var logIndex uint
	receipts := make([]api.EVMTx, len(txs))
	for i, tx := range txs {
		var idx [8]byte
		binary.BigEndian.PutUint64(idx[:], uint64(i))
		hash := crypto.Keccak256Hash(h.Hash[:], idx[:]).Hex()
		gas := tx.GasUsed
		if gas == 0 {
			gas = 21000
		}
		cumulative += gas
		r := api.EVMTx{
			BlockHash:         blockHash,
			BlockNumber:       blockNum,
			CumulativeGasUsed: hexutil.EncodeUint64(cumulative),
			EffectiveGasPrice: hexutil.EncodeUint64(1_000_000_000),
			From:              hexLower(tx.From),
			GasUsed:           hexutil.EncodeUint64(gas),
			Logs:              []api.EVMLog{},
			Status:            "0x1",
			TxHash:            hash,
			TxIndex:           hexutil.EncodeUint64(uint64(i)),
			Type:              "0x2",
		}
		if tx.Failed {
			r.Status = "0x0"
		}
		if tx.To != nil {
			r.To = hexLower(*tx.To)
		} else {
			c := hexLower(crypto.CreateAddress(tx.From, uint64(n)<<16|uint64(i)))
			r.ContractAddress = &c
		}
		var bloomLogs []*types.Log
		for _, l := range tx.Logs {
			topics := make([]string, len(l.Topics))
			for j, t := range l.Topics {
				topics[j] = t.Hex()
			}
			r.Logs = append(r.Logs, api.EVMLog{
				Address: hexLower(l.Address), Topics: topics, Data: hexutil.Encode(l.Data),
				BlockNumber: blockNum, TxHash: hash, TxIndex: r.TxIndex, BlockHash: blockHash,
				LogIndex: hexutil.EncodeUint64(uint64(logIndex)),
			})
			logIndex++
			bloomLogs = append(bloomLogs, &types.Log{Address: l.Address, Topics: l.Topics})
		}
		bloom := types.CreateBloom(&types.Receipt{Logs: bloomLogs})
		r.LogsBloom = hexutil.Encode(bloom[:])
		receipts[i] = r
	}
	m.blocks = append(m.blocks, memBlock{header: h, receipts: receipts})
	m.byHash[h.Hash] = receipts
	return h
}

// SetHead drops every block above height n (a later AddBlock builds a different fork).
func (m *MemChain) SetHead(n uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n+1 < uint64(len(m.blocks)) {
		m.blocks = m.blocks[:n+1]
	}
	m.forks++
}

// FailNext makes the next n Source calls fail, to exercise the indexer's retries.
func (m *MemChain) FailNext(n int) {
	m.mu.Lock()
	m.fail = n
	m.mu.Unlock()
}

// Block returns the header and receipts of canonical block n.
func (m *MemChain) Block(n uint64) (Header, []api.EVMTx, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n >= uint64(len(m.blocks)) {
		return Header{}, nil, false
	}
	b := m.blocks[n]
	return b.header, b.receipts, true
}

func (m *MemChain) fault() error {
	if m.fail > 0 {
		m.fail--
		return errFault
	}
	return nil
}

// Head implements Source.
func (m *MemChain) Head(ctx context.Context) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fault(); err != nil {
		return 0, err
	}
	return uint64(len(m.blocks) - 1), nil
}

// Headers implements Source.
func (m *MemChain) Headers(ctx context.Context, from, to uint64) ([]Header, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fault(); err != nil {
		return nil, err
	}
	var out []Header
	for n := from; n <= to && n < uint64(len(m.blocks)); n++ {
		out = append(out, m.blocks[n].header)
	}
	return out, nil
}

// Receipts implements Source. Blocks of abandoned forks stay retrievable, as on a node.
func (m *MemChain) Receipts(ctx context.Context, hashes []common.Hash) ([][]api.EVMTx, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.fault(); err != nil {
		return nil, err
	}
	out := make([][]api.EVMTx, len(hashes))
	for i, h := range hashes {
		r, found := m.byHash[h]
		if h == m.blocks[0].header.Hash {
			r, found = nil, true
		}
		out[i] = r
		if !found {
			return nil, fmt.Errorf("memchain: unknown block %s", h)
		}
	}
	return out, nil
}

func hexLower(a common.Address) string { return hexutil.Encode(a[:]) }
