package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxBody bounds a reply: a page of MaxLimit receipts with logs is a few megabytes.
const maxBody = 256 << 20

// HTTPError is a reply other than 200. The service answers errors in plain text; Body is
// that text (trimmed).
type HTTPError struct {
	Method     string
	URL        string
	StatusCode int
	Body       string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("indexer: %s %s: %d %s: %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode), e.Body)
}

// IsNotFound reports whether err is a 404 from the service (unknown hash, or no EVM).
func IsNotFound(err error) bool {
	var h *HTTPError
	return errors.As(err, &h) && h.StatusCode == http.StatusNotFound
}

// IsNoEVM reports whether err is the 404 of a chain that serves no EVM routes.
func IsNoEVM(err error) bool {
	var h *HTTPError
	return errors.As(err, &h) && h.StatusCode == http.StatusNotFound && h.Body == NoEVMMessage
}

// IsBadRequest reports whether err is a 400 (an invalid parameter; Body names it).
func IsBadRequest(err error) bool {
	var h *HTTPError
	return errors.As(err, &h) && h.StatusCode == http.StatusBadRequest
}

// Query holds the paging parameters of the list endpoints. The zero Query asks for the
// service's defaults: the newest 100 transactions, with a total.
type Query struct {
	Key        string // pagination.key, as a previous page's next_key
	Offset     int    // pagination.offset; ignored by the service when Key is a cursor
	Limit      int    // pagination.limit, 1..MaxLimit; 0 sends none (DefaultLimit)
	Ascending  bool   // oldest first (pagination.reverse=false); the default is newest first
	SkipTotal  bool   // pagination.count_total=false: the service answers total "0"
	SignerOnly bool   // is_signer=true: by_account only, transactions the account sent
}

func (q Query) values() url.Values {
	v := url.Values{}
	if q.Key != "" {
		v.Set(ParamKey, q.Key)
	}
	if q.Offset != 0 {
		v.Set(ParamOffset, strconv.Itoa(q.Offset))
	}
	if q.Limit != 0 {
		v.Set(ParamLimit, strconv.Itoa(q.Limit))
	}
	if q.Ascending {
		v.Set(ParamReverse, "false")
	}
	if q.SkipTotal {
		v.Set(ParamCountTotal, "false")
	}
	if q.SignerOnly {
		v.Set(ParamIsSigner, "true")
	}
	return v
}

func (q Query) limit() int {
	if q.Limit == 0 {
		return DefaultLimit
	}
	return q.Limit
}

// Client calls the indexer's EVM transaction API.
type Client struct {
	base string
	hc   *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default http.DefaultClient).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// NewClient returns a client of the service at baseURL, e.g. http://127.0.0.1:8080 (the
// paths start with /indexer).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("indexer: base url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("indexer: base url %q: want http(s)://host[:port]", baseURL)
	}
	c := &Client{base: strings.TrimRight(baseURL, "/"), hc: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// EVMTxs lists indexed EVM transactions.
func (c *Client) EVMTxs(ctx context.Context, q Query) (Page, error) {
	return c.page(ctx, PathEVMTxs, q)
}

// EVMTxsByAccount lists the transactions that involve account (0x-hex or init1 bech32): as
// sender, recipient, created contract, log emitter, or an address in an indexed log topic.
func (c *Client) EVMTxsByAccount(ctx context.Context, account string, q Query) (Page, error) {
	return c.page(ctx, PathEVMTxsByAccount+url.PathEscape(account), q)
}

// EVMTxsByHeight lists the transactions of one block.
func (c *Client) EVMTxsByHeight(ctx context.Context, height uint64, q Query) (Page, error) {
	return c.page(ctx, PathEVMTxsByHeight+strconv.FormatUint(height, 10), q)
}

// EVMTx fetches one transaction by hash (0x-hex). An unknown hash is an *HTTPError with
// status 404 (IsNotFound).
func (c *Client) EVMTx(ctx context.Context, hash string) (EVMTx, error) {
	var r TxResponse
	err := c.get(ctx, PathEVMTxs+"/"+url.PathEscape(hash), nil, &r)
	return r.Tx, err
}

// AllEVMTxs iterates over every transaction from q on, page by page, in q's direction.
func (c *Client) AllEVMTxs(ctx context.Context, q Query) iter.Seq2[EVMTx, error] {
	return c.all(ctx, PathEVMTxs, q)
}

// AllEVMTxsByAccount iterates over every transaction of account from q on.
func (c *Client) AllEVMTxsByAccount(ctx context.Context, account string, q Query) iter.Seq2[EVMTx, error] {
	return c.all(ctx, PathEVMTxsByAccount+url.PathEscape(account), q)
}

// AllEVMTxsByHeight iterates over every transaction of one block from q on.
func (c *Client) AllEVMTxsByHeight(ctx context.Context, height uint64, q Query) iter.Seq2[EVMTx, error] {
	return c.all(ctx, PathEVMTxsByHeight+strconv.FormatUint(height, 10), q)
}

// Pages iterates over the raw pages of path (one of the Path constants, with its argument)
// from q on. It follows next_key and stops after a page shorter than the limit, an empty
// page or a page without next_key: the service returns a next_key on its last page too, so
// next_key alone never ends a walk. An error is yielded once, and ends the walk.
func (c *Client) Pages(ctx context.Context, path string, q Query) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		limit := q.limit()
		for {
			p, err := c.page(ctx, path, q)
			if err != nil {
				yield(Page{}, err)
				return
			}
			if !yield(p, nil) {
				return
			}
			if len(p.Txs) == 0 || len(p.Txs) < limit || p.Pagination.NextKey == nil {
				return
			}
			next := *p.Pagination.NextKey
			if next == q.Key {
				yield(Page{}, fmt.Errorf("indexer: %s: next_key %q repeats the request's key", path, next))
				return
			}
			q.Key, q.Offset = next, 0
		}
	}
}

func (c *Client) all(ctx context.Context, path string, q Query) iter.Seq2[EVMTx, error] {
	return func(yield func(EVMTx, error) bool) {
		for p, err := range c.Pages(ctx, path, q) {
			if err != nil {
				yield(EVMTx{}, err)
				return
			}
			for _, tx := range p.Txs {
				if !yield(tx, nil) {
					return
				}
			}
		}
	}
}

func (c *Client) page(ctx context.Context, path string, q Query) (Page, error) {
	var p Page
	err := c.get(ctx, path, q.values(), &p)
	return p, err
}

func (c *Client) get(ctx context.Context, path string, v url.Values, out any) error {
	u := c.base + path
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("indexer: GET %s: read body: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &HTTPError{Method: http.MethodGet, URL: u, StatusCode: resp.StatusCode, Body: strings.TrimSpace(string(body))}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("indexer: GET %s: decode reply: %w", u, err)
	}
	return nil
}
