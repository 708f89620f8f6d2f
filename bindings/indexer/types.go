// Package indexer is the typed Go face of the chain indexer (Initia's rollytics): its EVM
// transaction API (GET /indexer/tx/v1/evm-txs and its by_account, by_height and by-hash
// forms), its Cosmos transaction API (/indexer/tx/v1/txs, the same forms; cosmos.go) and its
// block API (/indexer/block/v1/blocks, /{height}), and /status: the response types, with
// the same JSON as the service, and a paging client.
//
// The service returns each EVM transaction as its receipt, in the shape of the
// eth_getBlockReceipts JSON-RPC reply: every number is a 0x-prefixed hex quantity in a
// string, addresses are lowercase hex. The types keep those strings as they are, so a value
// decoded and encoded again is byte-for-byte what the service sent; helper methods parse them.
package indexer

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Paths of the EVM transaction API, relative to the service's base URL.
const (
	PathEVMTxs          = "/indexer/tx/v1/evm-txs"
	PathEVMTxsByAccount = PathEVMTxs + "/by_account/" // + account
	PathEVMTxsByHeight  = PathEVMTxs + "/by_height/"  // + height
)

// Paging limits of the service.
const (
	DefaultLimit = 100  // pagination.limit when the request has none
	MaxLimit     = 1000 // pagination.limit must be in 1..MaxLimit
)

// Query parameter names.
const (
	ParamKey        = "pagination.key"
	ParamOffset     = "pagination.offset"
	ParamLimit      = "pagination.limit"
	ParamCountTotal = "pagination.count_total"
	ParamReverse    = "pagination.reverse"
	ParamIsSigner   = "is_signer"
)

// NoEVMMessage is the plain-text body of the 404 a chain without an EVM serves on every
// evm-txs route.
const NoEVMMessage = "evm routes are not available on this chain"

// TxNotFoundMessage is the plain-text body of the 404 for an unknown transaction hash.
const TxNotFoundMessage = "tx not found"

// EVMTx is one indexed EVM transaction: its receipt as eth_getBlockReceipts returns it,
// restricted to the fields the service keeps. To is "" for a contract creation (the
// receipt's null), and ContractAddress is nil unless the transaction created a contract.
type EVMTx struct {
	BlockHash         string   `json:"blockHash"`
	BlockNumber       string   `json:"blockNumber"`
	ContractAddress   *string  `json:"contractAddress"`
	CumulativeGasUsed string   `json:"cumulativeGasUsed"`
	EffectiveGasPrice string   `json:"effectiveGasPrice"`
	From              string   `json:"from"`
	GasUsed           string   `json:"gasUsed"`
	Logs              []EVMLog `json:"logs"`
	LogsBloom         string   `json:"logsBloom"`
	Status            string   `json:"status"`
	To                string   `json:"to"`
	TxHash            string   `json:"transactionHash"`
	TxIndex           string   `json:"transactionIndex"`
	Type              string   `json:"type"`
}

// EVMLog is one log of an EVMTx, as in the receipt.
type EVMLog struct {
	Address     string   `json:"address"`
	Topics      []string `json:"topics"`
	Data        string   `json:"data"`
	BlockNumber string   `json:"blockNumber"`
	TxHash      string   `json:"transactionHash"`
	TxIndex     string   `json:"transactionIndex"`
	BlockHash   string   `json:"blockHash"`
	LogIndex    string   `json:"logIndex"`
	Removed     bool     `json:"removed"`
}

// Height is the block number of the transaction.
func (t EVMTx) Height() (uint64, error) { return ParseQuantity(t.BlockNumber) }

// Succeeded reports whether the receipt's status is 1.
func (t EVMTx) Succeeded() bool {
	s, err := ParseQuantity(t.Status)
	return err == nil && s == 1
}

// GasUsedUint is the gas the transaction used.
func (t EVMTx) GasUsedUint() (uint64, error) { return ParseQuantity(t.GasUsed) }

// Pagination is the paging part of a list response. NextKey is the base64 of
// {"sequence":N} of the page's last row, present on every non-empty page, the last one
// included; PreviousKey is null except in offset mode. Total is a decimal string, "0" when
// the request set pagination.count_total=false.
type Pagination struct {
	PreviousKey *string `json:"previous_key"`
	NextKey     *string `json:"next_key"`
	Total       string  `json:"total"`
}

// TotalCount parses Total.
func (p Pagination) TotalCount() (int64, error) { return strconv.ParseInt(p.Total, 10, 64) }

// Page is the reply of the list endpoints.
type Page struct {
	Txs        []EVMTx    `json:"txs"`
	Pagination Pagination `json:"pagination"`
}

// TxResponse is the reply of GET /indexer/tx/v1/evm-txs/{tx_hash}.
type TxResponse struct {
	Tx EVMTx `json:"tx"`
}

// SequenceKey is the pagination.key that continues after the row with this sequence:
// base64 of {"sequence":seq}, as the service writes it.
func SequenceKey(seq int64) string {
	return base64.StdEncoding.EncodeToString([]byte(`{"sequence":` + strconv.FormatInt(seq, 10) + `}`))
}

// ParseSequenceKey reads the sequence out of a key made by SequenceKey (or the service).
func ParseSequenceKey(key string) (int64, error) {
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return 0, fmt.Errorf("pagination key is not base64: %w", err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		return 0, fmt.Errorf("pagination key is not a JSON cursor: %w", err)
	}
	f, ok := c["sequence"].(float64)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, errors.New("pagination key has no integer sequence")
	}
	return int64(f), nil
}

// ParseQuantity parses a 0x-prefixed hex quantity such as "0x1a".
func ParseQuantity(s string) (uint64, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" {
		return 0, fmt.Errorf("not a hex quantity: %q", s)
	}
	return strconv.ParseUint(h, 16, 64)
}
