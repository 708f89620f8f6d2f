// Package stage reads the VIP stage the L1 is in (the vip module's ModuleStore resource),
// which a deployment starts at.
package stage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vipharness/vipharness/bindings/nodehttp"
)

// Network is a public L1 the stage can be read from.
type Network struct {
	Name       string
	REST       string
	VIPAddress string
}

var presets = []Network{
	{"mainnet", "https://rest.initia.xyz", "0x3a886b32a802582f2e446e74d4a24d1d7ed01adf46d2a8f65c5723887e708789"},
	{"testnet", "https://rest.testnet.initia.xyz", "0xe55cc823efb411bed5eed25aca5277229a54c62ab3769005f86cc44bc0c0e5ab"},
}

// Preset returns the public L1 named mainnet or testnet.
func Preset(name string) (Network, error) {
	for _, p := range presets {
		if strings.EqualFold(p.Name, strings.TrimSpace(name)) {
			return p, nil
		}
	}
	return Network{}, fmt.Errorf("unknown network %q: want mainnet or testnet, or name the L1's REST and VIP module instead", name)
}

// maxBody bounds what is read from a remote reply (a page of a vip table).
const maxBody = 16 << 20

// Timeout bounds every call of a Reader's default client.
const Timeout = 10 * time.Second

// Reader is the one client of the L1's REST face: it reads the L1's current VIP stage, and
// makes the other calls of the vip module's readers (Call; audit's snapshots and stage
// times), all with its client's timeout.
type Reader struct {
	rest   string
	vip    string
	client *http.Client
}

// Option configures a Reader.
type Option func(*Reader)

// WithHTTPClient replaces the default client (10 s timeout).
func WithHTTPClient(c *http.Client) Option { return func(r *Reader) { r.client = c } }

// NewReader reads from the L1 REST endpoint rest, where the vip module lives at vipAddress.
func NewReader(rest, vipAddress string, opts ...Option) *Reader {
	r := &Reader{rest: strings.TrimRight(rest, "/"), vip: strings.TrimSpace(vipAddress), client: &http.Client{Timeout: Timeout}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// VIPAddress is the vip module's address.
func (r *Reader) VIPAddress() string { return r.vip }

// Call sends method to path under the L1 REST URL, with a JSON body (nil: none), and
// returns the reply's body; a non-2xx reply is an *nodehttp.Error.
func (r *Reader) Call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.rest+path, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return do(r.client, req)
}

// ResourceURL is where the ModuleStore is read.
func (r *Reader) ResourceURL() string {
	tag := r.vip + "::vip::ModuleStore"
	return fmt.Sprintf("%s/initia/move/v1/accounts/%s/resources/by_struct_tag?struct_tag=%s", r.rest, url.PathEscape(r.vip), url.QueryEscape(tag))
}

type resourceReply struct {
	Resource *struct {
		Address      string `json:"address"`
		StructTag    string `json:"struct_tag"`
		MoveResource string `json:"move_resource"`
	} `json:"resource"`
}

type moduleStore struct {
	Type string `json:"type"`
	Data *struct {
		Stage json.RawMessage `json:"stage"`
	} `json:"data"`
}

// Stage returns the stage the L1's vip module is in. Errors name the URL and the problem:
// unreachable, not found (wrong address or network), malformed, non-numeric or zero.
func (r *Reader) Stage(ctx context.Context) (uint64, error) {
	if r.rest == "" || r.vip == "" {
		return 0, errors.New("read L1 stage: need both the L1 REST URL and the vip module address")
	}
	u := r.ResourceURL()
	body, err := get(ctx, r.client, u)
	if nodehttp.NotFound(err) {
		return 0, fmt.Errorf("read L1 stage: %w (not found: check the address and the network)", err)
	}
	if err != nil {
		return 0, fmt.Errorf("read L1 stage: %w", err)
	}
	var reply resourceReply
	if err := json.Unmarshal(body, &reply); err != nil {
		return 0, fmt.Errorf("read L1 stage from %s: malformed reply: %w", u, err)
	}
	if reply.Resource == nil || reply.Resource.MoveResource == "" {
		return 0, fmt.Errorf("read L1 stage from %s: malformed reply: no resource.move_resource", u)
	}
	var store moduleStore
	if err := json.Unmarshal([]byte(reply.Resource.MoveResource), &store); err != nil {
		return 0, fmt.Errorf("read L1 stage from %s: malformed move_resource: %w", u, err)
	}
	if store.Data == nil || len(store.Data.Stage) == 0 {
		return 0, fmt.Errorf("read L1 stage from %s: move_resource has no data.stage", u)
	}
	text := strings.Trim(string(store.Data.Stage), `"`)
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read L1 stage from %s: stage %s is not a decimal u64", u, store.Data.Stage)
	}
	if n == 0 {
		return 0, fmt.Errorf("read L1 stage from %s: the L1 reports stage 0 (VIP not started)", u)
	}
	return n, nil
}

func get(ctx context.Context, c *http.Client, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	return do(c, req)
}

func do(c *http.Client, req *http.Request) ([]byte, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: unreachable: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	return nodehttp.Read(req, resp, maxBody)
}
