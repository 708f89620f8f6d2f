package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/probe"
	"github.com/vipharness/vipharness/deployer/registry"
)

func newRegistryCmd(g *globals) *cobra.Command {
	var (
		in                  registry.Inputs
		registryDir, outDir string
		logoFile            string
		vipActions          []string
	)
	cmd := &cobra.Command{
		Use:   "registry --network mainnet|testnet --name NAME --rest URL [--registry-dir DIR] ...",
		Short: "Write the rollup's entry for Initia's chain registry (chain.json, assetlist.json, profile), checked",
		Long: `Reads the chain id, EVM chain id, bech32 prefix, fee tokens and gas prices, and the
minitia type and version from the live rollup (--rest, and --rpc for minievm's JSON-RPC),
adds the flags' values, checks the entry against the registry's rules and writes it,
formatted as the registry's prettier check wants:
  <network>s/<name>/chain.json, <network>s/<name>/assetlist.json, profiles/<name>.json
into --registry-dir (a checkout of initia-labs/initia-registry, ready for a pull request)
or --out. The public endpoints (--public-*) are the https URLs users will reach.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in.Network = g.network
			for _, a := range vipActions {
				title, desc, _ := strings.Cut(a, ":")
				in.VIPActions = append(in.VIPActions, registry.Action{Title: strings.TrimSpace(title), Description: strings.TrimSpace(desc)})
			}
			var logo []byte
			if logoFile != "" {
				if registryDir == "" {
					return invalid(errors.New("registry: --logo-file needs --registry-dir: the image goes into the registry's images/"))
				}
				if in.Logo != "" {
					return invalid(errors.New("registry: --logo and --logo-file both name the logo: pass one"))
				}
				var err error
				if logo, err = os.ReadFile(logoFile); err != nil {
					return invalid(fmt.Errorf("registry: --logo-file: %w", err))
				}
				if err := registry.CheckLogo(logo); err != nil {
					return invalid(fmt.Errorf("registry: --logo-file %s: %w", logoFile, err))
				}
				in.Logo = registry.RawBase + "images/" + in.Name + ".png"
			}
			if err := in.Check(); err != nil {
				return invalid(fmt.Errorf("registry: %w", flagNamesRegistry(err)))
			}
			if g.rest == "" {
				return invalid(errors.New("registry: --rest (or REST_URL): the rollup's REST endpoint, to read its chain id, prefix and gas prices"))
			}
			root := registryDir
			if root == "" {
				root = outDir
			}
			schemas, err := registry.SchemasFor(registryDir)
			if err != nil {
				return invalid(fmt.Errorf("registry: --registry-dir: %w", err))
			}
			ctx := cmd.Context()
			live, err := readLive(ctx, g)
			if err != nil {
				return err
			}
			if in.OpBridgeID == 0 {
				// A minitia's opchild module knows its bridge.
				if b, err := (&probe.Client{REST: g.rest}).BridgeInfo(ctx); err == nil {
					in.OpBridgeID = b.ID
				}
			}
			entry, err := registry.Build(live, in)
			if err != nil {
				return invalid(fmt.Errorf("registry: %w", flagNamesRegistry(err)))
			}
			files, err := entry.Files()
			if err != nil {
				return err
			}
			check := registry.EntryFiles{
				Dir:       filepath.ToSlash(filepath.Join(registry.NetworkFolder(in.Network), in.Name)),
				Chain:     files[registry.ChainPath(in.Network, in.Name)],
				Assetlist: files[registry.AssetlistPath(in.Network, in.Name)],
				Profile:   files[registry.ProfilePath(in.Name)],
				Schemas:   schemas,
			}
			if registryDir != "" && logoFile == "" {
				check.Root = registryDir
			}
			problems, err := registry.Validate(check)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				return problemsError(g, "registry: the entry breaks the registry's rules; nothing written", problems)
			}
			written, err := files.Write(root)
			if err != nil {
				return fmt.Errorf("registry: %w", err)
			}
			if logo != nil {
				dst := filepath.Join(registryDir, "images", in.Name+".png")
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(dst, logo, 0o644); err != nil {
					return fmt.Errorf("registry: copy the logo: %w", err)
				}
				written = append(written, dst)
			}
			next := "review the files, then validate them in place: vipctl registry validate " + filepath.Join(root, registry.NetworkFolder(in.Network), in.Name)
			if registryDir != "" {
				next = "commit the files on a branch of your initia-registry fork and open a pull request"
			}
			return g.printResult(map[string]any{"files": written, "chain_id": live.ChainID, "minitia": live.Minitia, "next": next},
				"wrote\n  "+strings.Join(written, "\n  ")+"\nnext: "+next)
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Name, "name", "", "chain_name and registry folder: lower-case letters and digits")
	f.StringVar(&in.PrettyName, "pretty-name", "", "the rollup's display name")
	f.StringVar(&in.Description, "description", "", fmt.Sprintf("a description of the rollup (profile: at most %d characters)", registry.MaxDescription))
	f.StringVar(&in.Website, "website", "", "https website")
	f.StringSliceVar(&in.RPC, "public-rpc", nil, "public https CometBFT RPC endpoint (repeatable)")
	f.StringSliceVar(&in.REST, "public-rest", nil, "public https REST endpoint (repeatable)")
	f.StringSliceVar(&in.GRPC, "public-grpc", nil, "public gRPC endpoint host:port (repeatable)")
	f.StringSliceVar(&in.JSONRPC, "public-json-rpc", nil, "public https EVM JSON-RPC endpoint (minievm only; repeatable)")
	f.StringSliceVar(&in.JSONRPCWS, "public-json-rpc-ws", nil, "public wss EVM JSON-RPC websocket (minievm only; repeatable)")
	f.StringSliceVar(&in.Indexer, "public-indexer", nil, "public https indexer endpoint (repeatable)")
	f.Uint64Var(&in.OpBridgeID, "op-bridge-id", 0, "the rollup's OPinit bridge id on the L1 (default: the rollup's opchild bridge_info)")
	f.StringSliceVar(&in.OpDenoms, "op-denom", []string{"uinit"}, "L1 denoms the bridge carries (repeatable)")
	f.StringVar(&in.ExecutorURI, "executor-uri", "", "https URL of the OPinit executor API")
	f.StringVar(&in.Logo, "logo", "", "https URL of the rollup's PNG logo (this or --logo-file)")
	f.StringVar(&logoFile, "logo-file", "", "PNG image (<= 100 KB) to add to the registry's images/ as <name>.png (with --registry-dir)")
	f.StringVar(&in.AssetSymbol, "asset-symbol", "", "symbol of the first fee token, e.g. INIT")
	f.StringVar(&in.AssetName, "asset-name", "", "name of the first fee token (<= 42 characters)")
	f.IntVar(&in.AssetDecimals, "asset-decimals", 0, "decimals of the first fee token's display unit")
	f.StringVar(&in.Category, "category", "", "profile: category, one of "+strings.Join(registry.Categories, ", "))
	f.StringVar(&in.Summary, "summary", "", "profile: a summary of at most 50 characters")
	f.StringVar(&in.Color, "color", "", "profile: colour as #RRGGBB")
	f.StringVar(&in.Twitter, "twitter", "", "profile: https://x.com/... link")
	f.StringVar(&in.Status, "status", "live", "profile: "+strings.Join(registry.Statuses, ", "))
	f.StringArrayVar(&vipActions, "vip-action", nil, `profile: a scored user action, "Title: description" (repeatable)`)
	f.StringVar(&registryDir, "registry-dir", "", "a checkout of initia-labs/initia-registry to write into")
	f.StringVar(&outDir, "out", "registry", "folder to write into when there is no --registry-dir")

	validate := &cobra.Command{
		Use:   "validate PATH",
		Short: "Check an entry (PATH = <registry>/<network>s/<name>) against the registry's rules; each broken rule names its field",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := registry.ReadEntry(args[0])
			if err != nil {
				return invalid(fmt.Errorf("registry validate: %w", err))
			}
			// A checkout's own schemas are the rules its CI applies; ours stand in elsewhere.
			if files.Schemas, err = registry.SchemasFor(files.Root); err != nil {
				return invalid(fmt.Errorf("registry validate: %w", err))
			}
			problems, err := registry.Validate(files)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				return problemsError(g, fmt.Sprintf("registry validate: %s breaks %d rule(s) (schemas: %s)", args[0], len(problems), files.Schemas.Source), problems)
			}
			return g.printResult(map[string]any{"path": args[0], "schemas": files.Schemas.Source, "problems": []registry.Problem{}},
				fmt.Sprintf("%s: the entry passes the registry's rules (schemas: %s)", args[0], files.Schemas.Source))
		},
	}
	cmd.AddCommand(validate)
	return cmd
}

// problemsError prints the problems (a list, or JSON) and returns the invalid-input exit.
func problemsError(g *globals, head string, problems []registry.Problem) error {
	if g.jsonOut {
		_ = g.printResult(map[string]any{"problems": problems}, "")
		return &exitError{exitInvalid, errors.New(head)}
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "  " + p.String()
	}
	return invalid(fmt.Errorf("%s:\n%s", head, strings.Join(lines, "\n")))
}

// flagNamesRegistry names the flag behind each input Build refused.
func flagNamesRegistry(err error) error {
	var out []error
	for _, e := range unjoin(err) {
		var ie *registry.InputError
		if !errors.As(e, &ie) {
			out = append(out, e)
			continue
		}
		name := "--" + ie.Input
		switch ie.Input {
		case "op-denoms":
			name = "--op-denom"
		case "logo":
			name = "--logo (or --logo-file)"
		case "chain-id", "gas-prices":
			name = "the rollup (--rest)"
		}
		out = append(out, fmt.Errorf("%s: %w", name, ie.Err))
	}
	return errors.Join(out...)
}

// readLive asks the rollup what the registry entry states about it.
func readLive(ctx context.Context, g *globals) (registry.Live, error) {
	c := &probe.Client{REST: g.rest, JSONRPC: g.rpc}
	ni, err := c.NodeInfo(ctx)
	if err != nil {
		return registry.Live{}, fmt.Errorf("registry: read the rollup's node_info: %w", err)
	}
	live := registry.Live{ChainID: ni.Network, Minitia: ni.Name, Version: ni.Version}
	if live.Bech32Prefix, err = c.Bech32Prefix(ctx); err != nil {
		return registry.Live{}, fmt.Errorf("registry: read the rollup's bech32 prefix: %w", err)
	}
	if live.GasPrices, err = c.MinGasPrices(ctx); err != nil {
		return registry.Live{}, fmt.Errorf("registry: read the rollup's gas prices: %w", err)
	}
	if ni.Name == "minievm" {
		if g.rpc == "" {
			return registry.Live{}, invalid(errors.New("registry: the rollup is a minievm: pass --rpc (JSON_RPC_URL) to read its EVM chain id"))
		}
		if live.EVMChainID, err = c.EVMChainID(ctx); err != nil {
			return registry.Live{}, fmt.Errorf("registry: read the EVM chain id: %w", err)
		}
	}
	return live, nil
}
