package indexer

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

var (
	errCosmosTxNotFound = errors.New(api.TxNotFoundCosmos)
	errRouteNotFound    = errors.New("no such route")
)

// serveCosmos serves the Cosmos tx routes (under api.PathTxs) and the block routes.
func (ix *Indexer) serveCosmos(w http.ResponseWriter, path string, q url.Values, blocks bool) error {
	if blocks {
		rest := strings.TrimPrefix(path, api.PathBlocks)
		switch {
		case rest == "":
			return ix.serveBlocks(w, q)
		case !strings.Contains(rest[1:], "/"):
			return ix.serveBlock(w, rest[1:])
		}
		return errRouteNotFound
	}
	rest := strings.TrimPrefix(path, api.PathTxs)
	msgs := msgsQuery(q)
	switch {
	case rest == "":
		return ix.serveList(w, q, msgs)
	case strings.HasPrefix(rest, "/by_account/") && !strings.Contains(rest[len("/by_account/"):], "/"):
		return ix.serveByAccount(w, rest[len("/by_account/"):], q, msgs)
	case strings.HasPrefix(rest, "/by_height/") && !strings.Contains(rest[len("/by_height/"):], "/"):
		return ix.serveByHeight(w, rest[len("/by_height/"):], q, msgs)
	case !strings.Contains(rest[1:], "/"):
		b, err := parseHash(rest[1:])
		if err != nil {
			return badRequest("invalid hash format")
		}
		if len(b) != common.HashLength {
			return errCosmosTxNotFound
		}
		ix.store.mu.RLock()
		rec := ix.store.byHash[common.BytesToHash(b)]
		ix.store.mu.RUnlock()
		if rec == nil {
			return errCosmosTxNotFound
		}
		writeJSON(w, wrap(`{"tx":`, rec.body))
		return nil
	}
	return errRouteNotFound
}

func parseHeight(s string) (uint64, error) {
	h, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("[INVALID_VALUE] invalid value for height: %s (must be a valid integer)", s))
	}
	if h < 1 {
		return 0, badRequest(fmt.Sprintf("[INVALID_VALUE] invalid value for height: %d (must be a positive integer)", h))
	}
	return uint64(h), nil
}

// msgsQuery is the msgs filter: repeated or comma-separated type URLs, a leading slash
// dropped (rollytics' GetMsgsQuery).
func msgsQuery(q url.Values) []string {
	var out []string
	for _, v := range q[api.ParamMsgs] {
		for _, m := range strings.Split(v, ",") {
			if m = strings.TrimPrefix(strings.TrimSpace(m), "/"); m != "" {
				out = append(out, m)
			}
		}
	}
	return out
}

// filterMsgs keeps the txs holding a message of one of the types (all when none is asked).
func filterMsgs(list []*record, msgs []string) []*record {
	if len(msgs) == 0 {
		return list
	}
	var out []*record
	for _, r := range list {
		if slices.ContainsFunc(r.msgs, func(m string) bool { return slices.Contains(msgs, m) }) {
			out = append(out, r)
		}
	}
	return out
}

// serveBlocks is the block list: height cursors ({"height":N}), total the newest height.
func (ix *Indexer) serveBlocks(w http.ResponseWriter, q url.Values) error {
	p, err := ix.parsePaginationBy(q, "height")
	if err != nil {
		return err
	}
	ix.store.mu.RLock()
	rows := pick(ix.store.blockRows, p)
	total := 0
	if n := len(ix.store.blockRows); n > 0 {
		total = int(ix.store.blockRows[n-1].height)
	}
	ix.store.mu.RUnlock()
	pg, err := json.Marshal(replyPaginationBy(p, rows, total, api.HeightKey))
	if err != nil {
		return err
	}
	buf := []byte(`{"blocks":[`)
	for i, r := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, r.body...)
	}
	buf = append(buf, `],"pagination":`...)
	buf = append(buf, pg...)
	writeJSON(w, append(buf, '}'))
	return nil
}

func (ix *Indexer) serveBlock(w http.ResponseWriter, height string) error {
	h, err := parseHeight(height)
	if err != nil {
		return err
	}
	ix.store.mu.RLock()
	var rec *record
	if rows := ix.store.blockRows; len(rows) > 0 && h >= rows[0].height && h-rows[0].height < uint64(len(rows)) {
		rec = rows[h-rows[0].height]
	}
	ix.store.mu.RUnlock()
	if rec == nil {
		return errBlockNotFound
	}
	writeJSON(w, wrap(`{"block":`, rec.body))
	return nil
}

func wrap(prefix string, body []byte) []byte {
	buf := make([]byte, 0, len(prefix)+len(body)+1)
	buf = append(buf, prefix...)
	buf = append(buf, body...)
	return append(buf, '}')
}
