// Package l1node reads the L1's vip module through Initia's Move REST routes: the stage the
// L1 is in (its ModuleStore resource, which a deployment starts at), each stage's times, the
// bridges registered for VIP and the snapshots the agent submitted. Reader is the one client
// of the L1 (the public networks' presets, or a REST URL and the module's address).
package l1node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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

// Timeout bounds every call of a Reader's default client.
const Timeout = nodehttp.DefaultTimeout

// Reader reads the L1's vip module at one address through the L1's REST face, all with its
// client's timeout.
type Reader struct {
	rest *nodehttp.Client
	vip  string
}

// NewReader reads from the L1 REST endpoint rest, where the vip module lives at vipAddress,
// through hc (nil: a client with Timeout).
func NewReader(rest, vipAddress string, hc *http.Client) *Reader {
	c := nodehttp.New(rest, hc)
	c.MaxReply = 16 << 20 // a page of a vip table
	return &Reader{rest: c, vip: strings.TrimSpace(vipAddress)}
}

// VIPAddress is the vip module's address.
func (r *Reader) VIPAddress() string { return r.vip }

// Call sends method to path under the L1 REST URL, with a JSON body (nil: none), and
// returns the reply's body; a non-2xx reply is an *nodehttp.Error.
func (r *Reader) Call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	return r.rest.Do(ctx, method, path, body)
}

// ResourceURL is where the ModuleStore is read.
func (r *Reader) ResourceURL() string {
	return r.rest.URL + r.resourcePath()
}

func (r *Reader) resourcePath() string {
	tag := r.vip + "::vip::ModuleStore"
	return fmt.Sprintf("/initia/move/v1/accounts/%s/resources/by_struct_tag?struct_tag=%s", url.PathEscape(r.vip), url.QueryEscape(tag))
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
	if r.rest.URL == "" || r.vip == "" {
		return 0, errors.New("read L1 stage: need both the L1 REST URL and the vip module address")
	}
	u := r.ResourceURL()
	body, err := r.rest.Do(ctx, http.MethodGet, r.resourcePath(), nil)
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
