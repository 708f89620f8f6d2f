package chainbench_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/localnet/indexer"
)

// synthChain is a deterministic EVM chain made as it is read, never held: blocks 1..Blocks
// a second apart from Genesis, each with TxsPerBlock transactions to Token, each emitting
// LogsPerTx ERC-20 Transfer logs among Users accounts. It is the indexer stand-in's Source
// and, over JSON-RPC, the node the policy's readers call.
type synthChain struct {
	Blocks, TxsPerBlock, LogsPerTx, Users uint64
	Genesis                               uint64
	Token                                 common.Address
	byHash                                map[common.Hash]uint64
}

// index makes the hash lookup (a few hundred kB for 10,000 blocks).
func (c *synthChain) index() *synthChain {
	c.byHash = make(map[common.Hash]uint64, c.Blocks+1)
	for n := range c.Blocks + 1 {
		c.byHash[c.hash(n)] = n
	}
	return c
}

var transferID = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

func (c *synthChain) Records() uint64 { return c.Blocks * c.TxsPerBlock * c.LogsPerTx }

func (c *synthChain) hash(n uint64) common.Hash {
	var b [16]byte
	copy(b[:8], "synthblk")
	binary.BigEndian.PutUint64(b[8:], n)
	return crypto.Keccak256Hash(b[:])
}

func (c *synthChain) user(i uint64) common.Address {
	var a common.Address
	a[0] = 0x5e
	binary.BigEndian.PutUint64(a[12:], i%c.Users+1)
	return a
}

func (c *synthChain) header(n uint64) indexer.Header {
	h := indexer.Header{Number: n, Hash: c.hash(n)}
	if n > 0 {
		h.ParentHash = c.hash(n - 1)
	}
	return h
}

// Head is the newest block.
func (c *synthChain) Head(context.Context) (uint64, error) { return c.Blocks, nil }

// Headers are blocks from..to (stopping at the head).
func (c *synthChain) Headers(_ context.Context, from, to uint64) ([]indexer.Header, error) {
	var out []indexer.Header
	for n := from; n <= min(to, c.Blocks); n++ {
		out = append(out, c.header(n))
	}
	return out, nil
}

// Receipts are each block's receipts by hash.
func (c *synthChain) Receipts(_ context.Context, blocks []common.Hash) ([][]api.EVMTx, error) {
	out := make([][]api.EVMTx, len(blocks))
	for i, h := range blocks {
		n, ok := c.number(h)
		if !ok {
			return nil, fmt.Errorf("synth: unknown block hash %s", h.Hex())
		}
		out[i] = c.receipts(n)
	}
	return out, nil
}

// number finds a block by hash.
func (c *synthChain) number(h common.Hash) (uint64, bool) {
	n, ok := c.byHash[h]
	return n, ok
}

func (c *synthChain) receipts(n uint64) []api.EVMTx {
	if n == 0 {
		return []api.EVMTx{}
	}
	blockHash, blockNum := c.hash(n).Hex(), hexutil.EncodeUint64(n)
	token := strings.ToLower(c.Token.Hex())
	out := make([]api.EVMTx, c.TxsPerBlock)
	var logIndex uint64
	for i := range c.TxsPerBlock {
		seq := (n-1)*c.TxsPerBlock + i
		var idx [16]byte
		binary.BigEndian.PutUint64(idx[:8], n)
		binary.BigEndian.PutUint64(idx[8:], i)
		txHash := crypto.Keccak256Hash(idx[:]).Hex()
		from := c.user(seq)
		r := api.EVMTx{BlockHash: blockHash, BlockNumber: blockNum, CumulativeGasUsed: hexutil.EncodeUint64((i + 1) * 50_000),
			EffectiveGasPrice: "0x3b9aca00", From: strings.ToLower(from.Hex()), GasUsed: "0xc350", Logs: make([]api.EVMLog, 0, c.LogsPerTx),
			LogsBloom: "0x" + strings.Repeat("0", 512), Status: "0x1", To: token, TxHash: txHash, TxIndex: hexutil.EncodeUint64(i), Type: "0x2"}
		for j := range c.LogsPerTx {
			k := seq*c.LogsPerTx + j
			to := c.user(k*7 + 3)
			value := new(big.Int).Mul(big.NewInt(int64(k%1000+1)), big.NewInt(1e15))
			r.Logs = append(r.Logs, api.EVMLog{
				Address: token,
				Topics:  []string{transferID.Hex(), common.BytesToHash(from[:]).Hex(), common.BytesToHash(to[:]).Hex()},
				Data:    hexutil.Encode(common.BigToHash(value).Bytes()), BlockNumber: blockNum, TxHash: txHash, TxIndex: r.TxIndex,
				BlockHash: blockHash, LogIndex: hexutil.EncodeUint64(logIndex),
			})
			logIndex++
		}
		out[i] = r
	}
	return out
}

// ethAPI is the chain's JSON-RPC: what the policy's node and indexer readers call. It
// refuses what it does not serve, naming it.
type ethAPI struct{ c *synthChain }

func (e *ethAPI) BlockNumber() hexutil.Uint64 { return hexutil.Uint64(e.c.Blocks) }

func (e *ethAPI) block(bn rpc.BlockNumber) (uint64, error) {
	switch {
	case bn == rpc.LatestBlockNumber:
		return e.c.Blocks, nil
	case bn < 0:
		return 0, fmt.Errorf("synth: block tag %d is not served", bn)
	case uint64(bn) > e.c.Blocks:
		return 0, errNoBlock
	}
	return uint64(bn), nil
}

var errNoBlock = errors.New("synth: no such block")

func (e *ethAPI) GetBlockByNumber(bn rpc.BlockNumber, full bool) (map[string]any, error) {
	n, err := e.block(bn)
	if errors.Is(err, errNoBlock) {
		return nil, nil // as a node answers a block it does not have
	}
	if err != nil {
		return nil, err
	}
	if full {
		return nil, errors.New("synth: full transactions are not served (the benchmark's sources are logs)")
	}
	h := e.c.header(n)
	return map[string]any{"number": hexutil.Uint64(n), "hash": h.Hash, "parentHash": h.ParentHash,
		"timestamp": hexutil.Uint64(e.c.Genesis + n), "transactions": []string{}}, nil
}

func (e *ethAPI) GetBlockReceipts(bnh rpc.BlockNumberOrHash) ([]api.EVMTx, error) {
	if h, ok := bnh.Hash(); ok {
		n, found := e.c.number(h)
		if !found {
			return nil, nil
		}
		return e.c.receipts(n), nil
	}
	bn, _ := bnh.Number()
	n, err := e.block(bn)
	if err != nil {
		return nil, err
	}
	return e.c.receipts(n), nil
}

type filter struct {
	FromBlock, ToBlock hexutil.Uint64
	Address            common.Address
	Topics             [][]common.Hash
}

// maxLogRange is the widest eth_getLogs range served (minievm's is 1,000,000 blocks; a
// smaller one makes the reader page, as hosted nodes do).
const maxLogRange = 10_000

func (e *ethAPI) GetLogs(f filter) ([]api.EVMLog, error) {
	if f.ToBlock < f.FromBlock || uint64(f.ToBlock) > e.c.Blocks {
		return nil, fmt.Errorf("synth: bad block range %d..%d (head %d)", f.FromBlock, f.ToBlock, e.c.Blocks)
	}
	if f.ToBlock-f.FromBlock+1 > maxLogRange {
		return nil, fmt.Errorf("synth: block range exceeds the limit of %d", maxLogRange)
	}
	if f.Address != e.c.Token || len(f.Topics) != 1 || len(f.Topics[0]) != 1 || f.Topics[0][0] != transferID {
		return []api.EVMLog{}, nil
	}
	var out []api.EVMLog
	for n := uint64(f.FromBlock); n <= uint64(f.ToBlock); n++ {
		if n == 0 {
			continue
		}
		for _, r := range e.c.receipts(n) {
			out = append(out, r.Logs...)
		}
	}
	return out, nil
}

// serve serves the chain's JSON-RPC on loopback until stop.
func (c *synthChain) serve() (url string, stop func(), err error) {
	srv := rpc.NewServer()
	if err := srv.RegisterName("eth", &ethAPI{c}); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln) //nolint:errcheck // ends with Close
	return "http://" + ln.Addr().String(), func() { hs.Close(); srv.Stop() }, nil
}
