package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// Request is what Write takes: the entry's inputs, the live rollup it describes, and where
// the files go.
type Request struct {
	Inputs Inputs
	// Rollup reads the rollup's own faces (REST, and JSON-RPC for a minievm).
	Rollup *probe.Client
	// RegistryDir is a checkout of initia-labs/initia-registry to write into, whose own
	// schemas and files are checked against; "" writes into Out.
	RegistryDir string
	Out         string
	// Logo is a PNG to add as images/<name>.png (needs RegistryDir); Inputs.Logo is then
	// set to its published URL.
	Logo []byte
}

// Written is what Write wrote, and where.
type Written struct {
	Files   []string `json:"files"`
	ChainID string   `json:"chain_id"`
	Minitia string   `json:"minitia"`
	// Entry is the entry's folder; InCheckout says it was written into a registry
	// checkout (ready for a pull request) rather than an output folder (to review first).
	Entry      string `json:"entry"`
	InCheckout bool   `json:"in_checkout"`
}

// ProblemsError is an entry that breaks the registry's rules: nothing was written.
type ProblemsError struct{ Problems []Problem }

func (e *ProblemsError) Error() string {
	return fmt.Sprintf("the entry breaks %d of the registry's rules; nothing written", len(e.Problems))
}

// Write builds the rollup's entry (chain.json, assetlist.json, profile) from req.Inputs and
// what the rollup itself reports, checks it against the registry's rules and writes it,
// formatted as the registry's prettier check wants. Inputs that are wrong are
// *InputError (wrapped); an entry that breaks a rule is *ProblemsError; in both cases
// nothing is written, and nothing of the rollup is read before the inputs pass.
func Write(ctx context.Context, req Request) (Written, error) {
	in := req.Inputs
	if req.Logo != nil {
		if err := req.checkLogo(); err != nil {
			return Written{}, err
		}
		in.Logo = RawBase + "images/" + in.Name + ".png"
	}
	if err := in.Check(); err != nil {
		return Written{}, err
	}
	if req.Rollup == nil || req.Rollup.REST == "" {
		return Written{}, &InputError{Input: "rest", Err: errors.New("the rollup's REST endpoint is needed, to read its chain id, prefix and gas prices")}
	}
	root := req.RegistryDir
	if root == "" {
		root = req.Out
	}
	schemas, err := SchemasFor(req.RegistryDir)
	if err != nil {
		return Written{}, &InputError{Input: "registry-dir", Err: err}
	}
	live, err := ReadLive(ctx, req.Rollup)
	if err != nil {
		return Written{}, err
	}
	if in.OpBridgeID == 0 {
		// A minitia's opchild module knows its bridge.
		if b, err := req.Rollup.BridgeInfo(ctx); err == nil {
			in.OpBridgeID = b.ID
		}
	}
	entry, err := Build(live, in)
	if err != nil {
		return Written{}, err
	}
	files, err := entry.Files()
	if err != nil {
		return Written{}, err
	}
	check := EntryFiles{
		Dir:       filepath.ToSlash(filepath.Join(NetworkFolder(in.Network), in.Name)),
		Chain:     files[ChainPath(in.Network, in.Name)],
		Assetlist: files[AssetlistPath(in.Network, in.Name)],
		Profile:   files[ProfilePath(in.Name)],
		Schemas:   schemas,
	}
	if req.RegistryDir != "" && req.Logo == nil {
		check.Root = req.RegistryDir // the logo the entry names must be in the checkout
	}
	problems, err := Validate(check)
	if err != nil {
		return Written{}, err
	}
	if len(problems) > 0 {
		return Written{}, &ProblemsError{Problems: problems}
	}
	written, err := files.Write(root)
	if err != nil {
		return Written{}, err
	}
	if req.Logo != nil {
		dst := filepath.Join(req.RegistryDir, "images", in.Name+".png")
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return Written{}, err
		}
		if err := os.WriteFile(dst, req.Logo, 0o644); err != nil {
			return Written{}, fmt.Errorf("copy the logo: %w", err)
		}
		written = append(written, dst)
	}
	return Written{Files: written, ChainID: live.ChainID, Minitia: live.Minitia,
		Entry: filepath.Join(root, NetworkFolder(in.Network), in.Name), InCheckout: req.RegistryDir != ""}, nil
}

// checkLogo refuses a logo file the registry would not take, or one with nowhere to go.
func (req Request) checkLogo() error {
	if req.RegistryDir == "" {
		return &InputError{Input: "logo-file", Err: errors.New("needs a registry checkout: the image goes into the registry's images/")}
	}
	if req.Inputs.Logo != "" {
		return &InputError{Input: "logo-file", Err: errors.New("the logo URL names the logo too: give one")}
	}
	if err := CheckLogo(req.Logo); err != nil {
		return &InputError{Input: "logo-file", Err: err}
	}
	return nil
}

// ReadLive asks the rollup what the registry entry states about it: node_info's chain id,
// minitia and version, its bech32 prefix and gas prices, and a minievm's EVM chain id.
func ReadLive(ctx context.Context, c *probe.Client) (Live, error) {
	ni, err := c.NodeInfo(ctx)
	if err != nil {
		return Live{}, fmt.Errorf("read the rollup's node_info: %w", err)
	}
	live := Live{ChainID: ni.Network, Minitia: ni.Name, Version: ni.Version}
	if live.Bech32Prefix, err = c.Bech32Prefix(ctx); err != nil {
		return Live{}, fmt.Errorf("read the rollup's bech32 prefix: %w", err)
	}
	if live.GasPrices, err = c.MinGasPrices(ctx); err != nil {
		return Live{}, fmt.Errorf("read the rollup's gas prices: %w", err)
	}
	if vip.ServesJSONRPC(ni.Name) {
		if c.JSONRPC == "" {
			return Live{}, &InputError{Input: "rpc", Err: errors.New("the rollup is a minievm: its JSON-RPC endpoint is needed to read its EVM chain id")}
		}
		if live.EVMChainID, err = c.EVMChainID(ctx); err != nil {
			return Live{}, fmt.Errorf("read the EVM chain id: %w", err)
		}
	}
	return live, nil
}
