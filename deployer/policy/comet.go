package policy

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/vipharness/vipharness/bindings/cosmosnode"
)

// CometNode reads a Cosmos rollup (Move, Wasm) over its CometBFT RPC: headers (status,
// header) and transactions with their events (tx_search by height range, oldest first, a
// page at a time). The node must run a tx index (the kv indexer; a minitia does).
type CometNode struct {
	node *cosmosnode.Node
	// PerPage is how many transactions one tx_search page holds (CometBFT's maximum, 100,
	// when 0).
	PerPage int
	mu      sync.Mutex
	headers map[uint64]Header
}

// DialComet reads the CometBFT RPC at url.
func DialComet(url string) (*CometNode, error) {
	if url == "" {
		return nil, fmt.Errorf("dial the rollup's CometBFT RPC: no URL")
	}
	node := cosmosnode.New("", url, &http.Client{Timeout: 2 * time.Minute})
	node.RPC.MaxReply = 256 << 20 // a page of 100 txs with their events
	return &CometNode{node: node, headers: map[uint64]Header{}}, nil
}

// Head is the newest block.
func (n *CometNode) Head(ctx context.Context) (Header, error) {
	h, err := n.node.LatestHeight(ctx)
	if err != nil {
		return Header{}, err
	}
	return n.Header(ctx, h)
}

// Header is block num: its height, block id hash and time in unix seconds (cached: a
// CometBFT block never changes once committed).
func (n *CometNode) Header(ctx context.Context, num uint64) (Header, error) {
	n.mu.Lock()
	h, ok := n.headers[num]
	n.mu.Unlock()
	if ok {
		return h, nil
	}
	if num == 0 {
		// CometBFT's first block is 1; the window's search asks for 0 as "before the chain".
		return Header{}, nil
	}
	m, err := n.node.BlockMeta(ctx, num)
	if err != nil {
		return Header{}, err
	}
	h = Header{Number: num, Hash: common.BytesToHash(m.Hash), Time: uint64(m.Time.Unix())}
	n.mu.Lock()
	n.headers[num] = h
	n.mu.Unlock()
	return h, nil
}

// Indexed reports whether the node's tx index holds every block up to h.
func (n *CometNode) Indexed(ctx context.Context, h uint64) error {
	ok, err := n.node.HasIndexedBlock(ctx, h+1)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the node's tx index has not reached block %d: %w", h, ErrBehind)
	}
	return nil
}

// query is the tx_search query of a source over blocks [from, to]: the height range, and
// what narrows it without a risk of missing an event (attribute values the chain writes as
// the policy does; a Move type tag may be printed otherwise, so only its presence).
func (s *Source) query(from, to uint64) string {
	q := fmt.Sprintf("tx.height >= %d AND tx.height <= %d", max(from, 1), to)
	quote := func(v string) string { return "'" + strings.ReplaceAll(v, "'", "\\'") + "'" }
	switch s.Kind {
	case KindMove:
		q += " AND move.type_tag EXISTS"
	case KindWasm:
		q += fmt.Sprintf(" AND %s._contract_address = %s", s.EventType, quote(s.ContractText))
	}
	if s.Kind != KindNative {
		for _, k := range s.attrKeys() {
			q += fmt.Sprintf(" AND %s.%s = %s", s.EventType, k, quote(s.Attrs[k]))
		}
	}
	return q
}

// Read yields a Cosmos source's records in [from, to] in chain order: tx_search over the
// height range (narrowed by the source), oldest first, every successful transaction's
// events that belong to the source, with their blocks' times.
func (n *CometNode) Read(ctx context.Context, s *Source, from, to uint64, each func(*Record) error) error {
	if !s.Cosmos {
		return fmt.Errorf("cometbft: source %s is an EVM source (%s)", s.Name, s.Kind)
	}
	if err := n.Indexed(ctx, to); err != nil {
		return fmt.Errorf("cometbft: source %s: %w", s.Name, err)
	}
	per := n.PerPage
	if per <= 0 || per > 100 {
		per = 100
	}
	q := s.query(from, to)
	seen := 0
	for page := 1; ; page++ {
		res, err := n.node.TxSearch(ctx, q, page, per)
		if err != nil {
			return fmt.Errorf("cometbft: source %s: %w", s.Name, err)
		}
		for i := range res.Txs {
			if err := n.txRecords(ctx, s, &res.Txs[i], each); err != nil {
				return err
			}
		}
		seen += len(res.Txs)
		if len(res.Txs) < per || seen >= int(res.TotalCount) {
			return nil
		}
	}
}

func (n *CometNode) txRecords(ctx context.Context, s *Source, tx *cosmosnode.Tx, each func(*Record) error) error {
	if tx.TxResult.Code != 0 {
		return nil // a failed tx's message events were dropped; its fee is no record
	}
	hash, err := tx.HashBytes()
	if err != nil {
		return fmt.Errorf("cometbft: %w", err)
	}
	h, err := n.Header(ctx, uint64(tx.Height))
	if err != nil {
		return fmt.Errorf("cometbft: block time: %w", err)
	}
	return eventRecords(s, h, common.BytesToHash(hash), uint64(tx.Index), events(tx.TxResult.Events), each)
}

// events are a tx's events as the readers hand them over.
func events(evs []cosmosnode.Event) []Event {
	out := make([]Event, len(evs))
	for i, e := range evs {
		out[i].Type = e.Type
		out[i].Attrs = make([]Attr, len(e.Attributes))
		for j, a := range e.Attributes {
			out[i].Attrs[j] = Attr{a.Key, a.Value}
		}
	}
	return out
}

// Event is a Cosmos event as the readers hand it over.
type Event struct {
	Type  string
	Attrs []Attr
}

// signer is a transaction's first signer: the account of the first acc_seq ("addr/seq")
// of its tx events, which the SDK's ante handler writes for every signature.
func signer(evs []Event) string {
	for _, e := range evs {
		if e.Type != "tx" {
			continue
		}
		for _, a := range e.Attrs {
			if a.Key == "acc_seq" {
				addr, _, _ := strings.Cut(a.Value, "/")
				return addr
			}
		}
	}
	return ""
}

// eventRecords yields the events of one successful transaction that belong to s.
func eventRecords(s *Source, h Header, hash common.Hash, index uint64, evs []Event, each func(*Record) error) error {
	from := signer(evs)
	for i, e := range evs {
		rec := Record{Block: h.Number, Time: h.Time, TxHash: hash, TxIndex: index, LogIndex: uint64(i), EventType: e.Type, Attrs: e.Attrs, Signer: from}
		if !s.Matches(&rec) {
			continue
		}
		if err := each(&rec); err != nil {
			return err
		}
	}
	return nil
}

// cometHash is a block or tx hash as CometBFT prints it: upper-case hex.
func cometHash(h common.Hash) string { return strings.ToUpper(hex.EncodeToString(h[:])) }
