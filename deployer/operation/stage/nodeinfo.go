package stage

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vip"
)

// NodeInfo is what a Cosmos rollup's REST says of itself
// (/cosmos/base/tendermint/v1beta1/node_info).
type NodeInfo struct {
	Network   string // the chain id
	Name      string // application_version.name: minievm, minimove, miniwasm on an Initia rollup
	AppName   string // application_version.app_name: minitiad on an Initia rollup
	Version   string // application_version.version
	BuildTags string // application_version.build_tags
}

// VM maps the application name to the rollup's VM: Initia's minievm, minimove and miniwasm,
// and wasmd (a plain CosmWasm chain) as Wasm (vip.Spec's names).
func (n NodeInfo) VM() (vip.VM, bool) { return scorers.ByNodeName(n.Name) }

// ReadNodeInfo asks a Cosmos REST endpoint for its node_info.
func ReadNodeInfo(ctx context.Context, rest string) (NodeInfo, error) {
	u := strings.TrimRight(rest, "/") + "/cosmos/base/tendermint/v1beta1/node_info"
	body, err := get(ctx, &http.Client{Timeout: 10 * time.Second}, u)
	if err != nil {
		return NodeInfo{}, fmt.Errorf("read node_info: %w", err)
	}
	var reply struct {
		Default struct {
			Network string `json:"network"`
		} `json:"default_node_info"`
		App struct {
			Name      string `json:"name"`
			AppName   string `json:"app_name"`
			Version   string `json:"version"`
			BuildTags string `json:"build_tags"`
		} `json:"application_version"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		return NodeInfo{}, fmt.Errorf("read node_info from %s: %w", u, err)
	}
	return NodeInfo{Network: reply.Default.Network, Name: reply.App.Name, AppName: reply.App.AppName,
		Version: reply.App.Version, BuildTags: reply.App.BuildTags}, nil
}
