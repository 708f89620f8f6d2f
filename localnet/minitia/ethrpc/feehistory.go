package ethrpc

import (
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/rpc"
)

// maxFeeHistory bounds a fee history's blocks (minievm's fee-history-max-headers and -blocks
// default to 1024).
const maxFeeHistory = 1024

var errInvalidPercentile = errors.New("invalid reward percentile")

// feeHistory is eth_feeHistory's answer.
type feeHistory struct {
	OldestBlock      *hexutil.Big     `json:"oldestBlock"`
	Reward           [][]*hexutil.Big `json:"reward,omitempty"`
	BaseFee          []*hexutil.Big   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64        `json:"gasUsedRatio"`
	BlobBaseFee      []*hexutil.Big   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64        `json:"blobGasUsedRatio,omitempty"`
}

// FeeHistory is go-ethereum's fee history over the index's blocks: each block's base fee (the
// chain's minimum gas price, as on a minievm), its gas used ratio, and the tips its txs paid
// at the given percentiles of its gas.
func (e *ethAPI) FeeHistory(count math.HexOrDecimal64, last rpc.BlockNumber, percentiles []float64) (*feeHistory, error) {
	if len(percentiles) > 100 {
		return nil, fmt.Errorf("%w: over the query limit 100", errInvalidPercentile)
	}
	for i, p := range percentiles {
		if p < 0 || p > 100 {
			return nil, fmt.Errorf("%w: %f", errInvalidPercentile, p)
		}
		if i > 0 && p <= percentiles[i-1] {
			return nil, fmt.Errorf("%w: #%d:%f >= #%d:%f", errInvalidPercentile, i-1, percentiles[i-1], i, p)
		}
	}
	blocks := min(uint64(count), maxFeeHistory)
	if blocks == 0 {
		return &feeHistory{OldestBlock: (*hexutil.Big)(big.NewInt(0))}, nil
	}
	lastHeight, err := e.height(rpc.BlockNumberOrHashWithNumber(last))
	if err != nil {
		return nil, err
	}
	blocks = min(blocks, lastHeight)
	oldest := lastHeight + 1 - blocks
	out := &feeHistory{OldestBlock: (*hexutil.Big)(new(big.Int).SetUint64(oldest))}
	for h := oldest; h <= lastHeight; h++ {
		header := e.x.Header(h)
		if header == nil {
			return nil, fmt.Errorf("header %d not found", h)
		}
		out.BaseFee = append(out.BaseFee, (*hexutil.Big)(header.BaseFee))
		out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(big.NewInt(0)))
		ratio := 0.0
		if header.GasLimit > 0 {
			ratio = float64(header.GasUsed) / float64(header.GasLimit)
		}
		out.GasUsedRatio = append(out.GasUsedRatio, ratio)
		out.BlobGasUsedRatio = append(out.BlobGasUsedRatio, 0)
		if len(percentiles) > 0 {
			out.Reward = append(out.Reward, e.rewards(h, header.BaseFee, percentiles))
		}
		if h == lastHeight {
			out.BaseFee = append(out.BaseFee, (*hexutil.Big)(header.BaseFee))
			out.BlobBaseFee = append(out.BlobBaseFee, (*hexutil.Big)(big.NewInt(0)))
		}
	}
	return out, nil
}

// rewards are a block's tips at the percentiles of its gas, as go-ethereum computes them.
func (e *ethAPI) rewards(height uint64, baseFee *big.Int, percentiles []float64) []*hexutil.Big {
	type paid struct {
		gas uint64
		tip *big.Int
	}
	var txs []paid
	var total uint64
	for _, t := range e.x.TxsAt(height) {
		tip := new(big.Int).Sub(t.tx.GasFeeCap(), baseFee)
		if cap := t.tx.GasTipCap(); tip.Cmp(cap) > 0 {
			tip = new(big.Int).Set(cap)
		}
		if tip.Sign() < 0 {
			tip = big.NewInt(0)
		}
		txs = append(txs, paid{t.receipt.GasUsed, tip})
		total += t.receipt.GasUsed
	}
	out := make([]*hexutil.Big, len(percentiles))
	if len(txs) == 0 {
		for i := range out {
			out[i] = (*hexutil.Big)(big.NewInt(0))
		}
		return out
	}
	sort.SliceStable(txs, func(i, j int) bool { return txs[i].tip.Cmp(txs[j].tip) < 0 })
	var sum uint64
	i := 0
	for j, p := range percentiles {
		threshold := uint64(float64(total) * p / 100)
		for sum < threshold && i < len(txs)-1 {
			sum += txs[i].gas
			i++
		}
		out[j] = (*hexutil.Big)(txs[i].tip)
	}
	return out
}
