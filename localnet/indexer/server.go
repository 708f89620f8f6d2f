package indexer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	api "github.com/vipharness/vipharness/bindings/indexer"
)

const internalTxsPath = "/indexer/tx/v1/evm-internal-txs"

// pageReq is a parsed pagination request, modelled on rollytics' Pagination: by default
// the reply carries a sequence cursor (next_key of the last row) while the rows are found
// by offset, unless the key holds a sequence, which then replaces the offset.
type pageReq struct {
	limit, offset int
	desc          bool
	countTotal    bool
	cursor        bool  // rows after seq
	seq           int64 // the key's sequence
	cursorReply   bool  // next_key is the last row's sequence, previous_key null
}

type badRequest string

func (e badRequest) Error() string { return string(e) }

func (ix *Indexer) parsePagination(q url.Values) (pageReq, error) {
	return ix.parsePaginationBy(q, "sequence")
}

// parsePaginationBy parses the paging of a list whose cursor is field ("sequence" for
// txs, "height" for blocks).
func (ix *Indexer) parsePaginationBy(q url.Values, field string) (pageReq, error) {
	p := pageReq{limit: api.DefaultLimit, desc: true, countTotal: true, cursorReply: true}
	lenient := ix.cfg.lenient
	intParam := func(name string, def int, msg string) (int, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		v, err := strconv.Atoi(s)
		if err != nil {
			if lenient {
				return def, nil
			}
			return 0, badRequest(msg)
		}
		return v, nil
	}
	boolParam := func(name string, def bool) (bool, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		v, err := strconv.ParseBool(s)
		if err != nil {
			if lenient {
				return def, nil
			}
			return false, badRequest(name + " must be a boolean")
		}
		return v, nil
	}
	limitMsg := fmt.Sprintf("%s must be between 1 and %d", api.ParamLimit, api.MaxLimit)
	var err error
	if p.limit, err = intParam(api.ParamLimit, api.DefaultLimit, limitMsg); err != nil {
		return p, err
	}
	if p.limit < 1 || p.limit > api.MaxLimit {
		return p, badRequest(limitMsg)
	}
	if p.offset, err = intParam(api.ParamOffset, 0, api.ParamOffset+" must be a non-negative integer"); err != nil {
		return p, err
	}
	if p.offset < 0 {
		return p, badRequest(api.ParamOffset + " cannot be negative")
	}
	if p.countTotal, err = boolParam(api.ParamCountTotal, true); err != nil {
		return p, err
	}
	if p.desc, err = boolParam(api.ParamReverse, true); err != nil {
		return p, err
	}
	if key := q.Get(api.ParamKey); key != "" {
		if err := ix.parseKey(key, field, &p); err != nil {
			return p, err
		}
	}
	return p, nil
}

func (ix *Indexer) parseKey(key, field string, p *pageReq) error {
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return badRequest(api.ParamKey + " must be a valid base64 encoded string")
	}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		var c map[string]any
		if json.Unmarshal(raw, &c) != nil {
			return badRequest("invalid " + api.ParamKey + " format")
		}
		_, hasSeq := c["sequence"]
		_, hasHeight := c["height"]
		p.cursorReply = hasSeq || hasHeight
		if f, ok := c[field].(float64); ok && f == math.Trunc(f) && math.Abs(f) < math.MaxInt64 {
			p.cursor, p.seq = true, int64(f)
		}
		if !p.cursor && !ix.cfg.lenient {
			return badRequest(api.ParamKey + ` must hold {"` + field + `":N} or an offset`)
		}
		return nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return badRequest(api.ParamKey + " must decode to a nonnegative integer")
	}
	p.offset = n
	return nil
}

// pick selects the page's rows from list (sorted by sequence).
func pick(list []*record, p pageReq) []*record {
	var lo, hi int
	switch {
	case p.cursor && p.desc:
		hi = sort.Search(len(list), func(i int) bool { return list[i].seq >= p.seq })
		lo = max(0, hi-p.limit)
	case p.cursor:
		lo = sort.Search(len(list), func(i int) bool { return list[i].seq > p.seq })
		hi = lo + min(p.limit, len(list)-lo)
	case p.desc:
		if p.offset >= len(list) {
			return nil
		}
		hi = len(list) - p.offset
		lo = max(0, hi-p.limit)
	default:
		if p.offset >= len(list) {
			return nil
		}
		lo = p.offset
		hi = lo + min(p.limit, len(list)-lo)
	}
	out := make([]*record, hi-lo)
	copy(out, list[lo:hi])
	if p.desc {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

func replyPagination(p pageReq, rows []*record, total int) api.Pagination {
	return replyPaginationBy(p, rows, total, api.SequenceKey)
}

// replyPaginationBy is replyPagination with the cursor key of a row's seq made by key.
func replyPaginationBy(p pageReq, rows []*record, total int, key func(int64) string) api.Pagination {
	var r api.Pagination
	if !p.countTotal {
		total = 0
	}
	r.Total = strconv.Itoa(total)
	if p.cursorReply && len(rows) > 0 {
		k := key(rows[len(rows)-1].seq)
		r.NextKey = &k
		return r
	}
	if len(rows) == p.limit {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(p.offset + p.limit)))
		r.NextKey = &k
	}
	if p.offset > 0 && p.offset >= p.limit {
		k := base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(p.offset - p.limit)))
		r.PreviousKey = &k
	}
	return r
}

// ServeHTTP serves the rollytics EVM tx routes.
func (ix *Indexer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimRight(path, "/")
	}
	under := func(prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }
	if ix.cosmos != nil && (under(api.PathTxs) || under(api.PathBlocks)) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			plain(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		ix.answer(w, r, ix.serveCosmos(w, path, r.URL.Query(), under(api.PathBlocks)))
		return
	}
	switch {
	case path == api.PathStatus && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		// rollytics' GET /status: the newest block it has collected.
		body, _ := json.Marshal(api.Status{Version: "vipharness-indexer", ChainID: ix.cfg.chainID, Height: int64(ix.Height())})
		writeJSON(w, body)
		return
	case under(api.PathEVMTxs) && ix.cfg.noEVM, under(internalTxsPath):
		// A chain without EVM answers every evm route so, on any method; the internal-tx
		// extension is off, as it is by default.
		plain(w, http.StatusNotFound, api.NoEVMMessage)
		return
	case !under(api.PathEVMTxs):
		plain(w, http.StatusNotFound, "Cannot "+r.Method+" "+html.EscapeString(r.URL.EscapedPath()))
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		w.Header().Set("Allow", "GET, HEAD")
		plain(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	rest := strings.TrimPrefix(path, api.PathEVMTxs)
	q := r.URL.Query()
	var err error
	switch {
	case rest == "":
		err = ix.serveList(w, q, nil)
	case strings.HasPrefix(rest, "/by_account/") && !strings.Contains(rest[len("/by_account/"):], "/"):
		err = ix.serveByAccount(w, rest[len("/by_account/"):], q, nil)
	case strings.HasPrefix(rest, "/by_height/") && !strings.Contains(rest[len("/by_height/"):], "/"):
		err = ix.serveByHeight(w, rest[len("/by_height/"):], q, nil)
	case !strings.Contains(rest[1:], "/"):
		err = ix.serveTx(w, rest[1:])
	default:
		plain(w, http.StatusNotFound, "Cannot "+r.Method+" "+html.EscapeString(r.URL.EscapedPath()))
		return
	}
	ix.answer(w, r, err)
}

// answer writes a handler's error: 400 for bad input, 404 for what is not there, else 500.
func (ix *Indexer) answer(w http.ResponseWriter, r *http.Request, err error) {
	var bad badRequest
	switch {
	case err == nil:
	case errors.As(err, &bad):
		plain(w, http.StatusBadRequest, bad.Error())
	case errors.Is(err, errTxNotFound):
		plain(w, http.StatusNotFound, api.TxNotFoundMessage)
	case errors.Is(err, errCosmosTxNotFound):
		plain(w, http.StatusNotFound, api.TxNotFoundCosmos)
	case errors.Is(err, errBlockNotFound):
		plain(w, http.StatusNotFound, api.BlockNotFound)
	case errors.Is(err, errRouteNotFound):
		plain(w, http.StatusNotFound, "Cannot "+r.Method+" "+html.EscapeString(r.URL.EscapedPath()))
	default:
		ix.log.Error("indexer request", "path", r.URL.Path, "err", err)
		plain(w, http.StatusInternalServerError, "Internal Server Error")
	}
}

var errTxNotFound = errors.New(api.TxNotFoundMessage)

func plain(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(msg))
}

// serveList, serveByAccount and serveByHeight page the txs of the EVM and the Cosmos routes
// alike; msgs keeps the Cosmos txs holding one of those message types (nil: every tx).
func (ix *Indexer) serveList(w http.ResponseWriter, q url.Values, msgs []string) error {
	p, err := ix.parsePagination(q)
	if err != nil {
		return err
	}
	ix.store.mu.RLock()
	list := filterMsgs(ix.store.txs, msgs)
	rows, total := pick(list, p), len(list)
	ix.store.mu.RUnlock()
	return writePage(w, p, rows, total)
}

func (ix *Indexer) serveByAccount(w http.ResponseWriter, account string, q url.Values, msgs []string) error {
	acct, err := parseAccount(account)
	if err != nil {
		return badRequest(fmt.Sprintf("[INVALID_VALUE] invalid value for account: %s (invalid address format)", account))
	}
	signer := q.Get(api.ParamIsSigner) == "true"
	p, err := ix.parsePagination(q)
	if err != nil {
		return err
	}
	ix.store.mu.RLock()
	list, signed := ix.store.accountLocked(acct)
	if signer {
		list = signed
	}
	list = filterMsgs(list, msgs)
	rows, total := pick(list, p), len(list)
	ix.store.mu.RUnlock()
	return writePage(w, p, rows, total)
}

func (ix *Indexer) serveByHeight(w http.ResponseWriter, height string, q url.Values, msgs []string) error {
	h, err := parseHeight(height)
	if err != nil {
		return err
	}
	p, err := ix.parsePagination(q)
	if err != nil {
		return err
	}
	ix.store.mu.RLock()
	list := filterMsgs(ix.store.byHeightLocked(h), msgs)
	rows, total := pick(list, p), len(list)
	ix.store.mu.RUnlock()
	return writePage(w, p, rows, total)
}

func (ix *Indexer) serveTx(w http.ResponseWriter, hash string) error {
	b, err := parseHash(hash)
	if err != nil {
		return badRequest("invalid hash format")
	}
	if len(b) != common.HashLength {
		return errTxNotFound
	}
	ix.store.mu.RLock()
	rec := ix.store.byHash[common.BytesToHash(b)]
	ix.store.mu.RUnlock()
	if rec == nil {
		return errTxNotFound
	}
	buf := rec.json(append(make([]byte, 0, 8*len(rec.body)), `{"tx":`...))
	buf = append(buf, '}')
	writeJSON(w, buf)
	return nil
}

func writePage(w http.ResponseWriter, p pageReq, rows []*record, total int) error {
	pg, err := json.Marshal(replyPagination(p, rows, total))
	if err != nil {
		return err
	}
	n := len(pg) + 32
	for _, r := range rows {
		n += len(r.body) + 1
		if r.zipped {
			n += 7 * len(r.body) // about what it takes unpacked
		}
	}
	buf := make([]byte, 0, n)
	buf = append(buf, `{"txs":[`...)
	for i, r := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = r.json(buf)
	}
	buf = append(buf, `],"pagination":`...)
	buf = append(buf, pg...)
	buf = append(buf, '}')
	writeJSON(w, buf)
	return nil
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
