package minitia

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	"github.com/cosmos/cosmos-sdk/server/api"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/version"
)

// nodeInfo is what node_info's application_version says: a minitia of this VM. The SDK reads
// it from link-time globals, one per process; here several chains share a process.
type nodeInfo struct{ name, binary, version string }

// cometService is the SDK's CometBFT service with node_info answering for this chain.
type cometService struct {
	cmtservice.ServiceServer
	info nodeInfo
}

func (s cometService) GetNodeInfo(ctx context.Context, req *cmtservice.GetNodeInfoRequest) (*cmtservice.GetNodeInfoResponse, error) {
	resp, err := s.ServiceServer.GetNodeInfo(ctx, req)
	if err != nil {
		return nil, err
	}
	v := resp.ApplicationVersion
	v.Name, v.AppName, v.Version = s.info.name, s.info.binary, s.info.version
	if v.CosmosSdkVersion == "" {
		v.CosmosSdkVersion = sdkVersion()
	}
	return resp, nil
}

func registerCometService(a *App, clientCtx client.Context) {
	cmtservice.RegisterServiceServer(a.GRPCQueryRouter(),
		cometService{ServiceServer: cmtservice.NewQueryServer(clientCtx, a.enc.Registry, a.Query), info: a.nodeInfo})
}

func registerCometGateway(clientCtx client.Context, srv *api.Server) {
	cmtservice.RegisterGRPCGatewayRoutes(clientCtx, srv.GRPCGatewayRouter)
}

// sdkVersion is the linked cosmos-sdk module's version (what a release build stamps).
var sdkVersion = sync.OnceValue(func() string {
	if v := version.NewInfo().CosmosSdkVersion; v != "" && v != "(devel)" {
		return v
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/cosmos/cosmos-sdk" {
				return d.Version
			}
		}
	}
	return ""
})

var prefixMu sync.Mutex

// setAddressPrefix sets the SDK's process-wide account prefix, which the SDK's modules use
// when they print an address (events, errors). Chains of one process must share it.
func setAddressPrefix(prefix string) error {
	prefixMu.Lock()
	defer prefixMu.Unlock()
	cfg := sdk.GetConfig()
	if cfg.GetBech32AccountAddrPrefix() == prefix {
		return nil
	}
	if strings.TrimSpace(prefix) == "" {
		return fmt.Errorf("minitia: empty bech32 prefix")
	}
	if sealedPrefix != "" {
		return fmt.Errorf("minitia: bech32 prefix %q: this process already runs chains with %q (one prefix per process)", prefix, sealedPrefix)
	}
	cfg.SetBech32PrefixForAccount(prefix, prefix+"pub")
	cfg.SetBech32PrefixForValidator(prefix+"valoper", prefix+"valoperpub")
	cfg.SetBech32PrefixForConsensusNode(prefix+"valcons", prefix+"valconspub")
	sealedPrefix = prefix
	return nil
}

var sealedPrefix string
