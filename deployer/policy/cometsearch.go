package policy

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
)

// txSearch is CometBFT's tx_search as the readers need it, decoded in one pass of
// encoding/json. CometBFT's own client decodes each tx result through its amino JSON and
// then gogoproto's jsonpb, which re-validates the nested JSON at every level: 80% of a
// reader's CPU, 2,700 records per CPU second (BENCHMARKS.md, "policy").
type txSearch struct {
	url string
	hc  *http.Client
	id  atomic.Int64
}

// searchTx is one tx of a tx_search reply: what CometBFT writes (ResultTx with the
// ExecTxResult as jsonpb prints it), the fields the readers use.
type searchTx struct {
	Hash     string   `json:"hash"`
	Height   flexUint `json:"height"`
	Index    flexUint `json:"index"`
	TxResult struct {
		Code   uint32 `json:"code"`
		Events []struct {
			Type       string `json:"type"`
			Attributes []struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			} `json:"attributes"`
		} `json:"events"`
	} `json:"tx_result"`
}

type searchResult struct {
	Txs        []searchTx `json:"txs"`
	TotalCount flexUint   `json:"total_count"`
}

// flexUint is an integer CometBFT's JSON writes as a string (64-bit) or a number.
type flexUint uint64

func (f *flexUint) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseUint(string(bytes.Trim(b, `"`)), 10, 64)
	if err != nil {
		return fmt.Errorf("integer %s: %w", b, err)
	}
	*f = flexUint(v)
	return nil
}

// search asks for one page of q, oldest first.
func (s *txSearch) search(ctx context.Context, q string, page, per int) (*searchResult, error) {
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": s.id.Add(1), "method": "tx_search",
		"params": map[string]any{"query": q, "prove": false, "page": strconv.Itoa(page), "per_page": strconv.Itoa(per), "order_by": "asc"},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	var r struct {
		Result *searchResult `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: reply %.200q: %w", resp.Status, raw, err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("RPC error %d - %s: %s", r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if r.Result == nil {
		return nil, fmt.Errorf("%s: reply %.200q holds no result", resp.Status, raw)
	}
	return r.Result, nil
}

// events are the tx's events as the readers hand them over.
func (t *searchTx) events() []Event {
	out := make([]Event, len(t.TxResult.Events))
	for i, e := range t.TxResult.Events {
		out[i].Type = e.Type
		out[i].Attrs = make([]Attr, len(e.Attributes))
		for j, a := range e.Attributes {
			out[i].Attrs[j] = Attr{a.Key, a.Value}
		}
	}
	return out
}

// hash is the tx's hash (CometBFT prints it as hex).
func (t *searchTx) hash() ([]byte, error) {
	h, err := hex.DecodeString(t.Hash)
	if err != nil || len(h) != 32 {
		return nil, fmt.Errorf("tx hash %q is not 32 bytes of hex", t.Hash)
	}
	return h, nil
}
