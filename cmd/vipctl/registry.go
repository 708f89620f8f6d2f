package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/registration/registry"
)

// registryOptions are registry's flags.
type registryOptions struct {
	*chainOptions       // --rpc, --rest and --network
	in                  registry.Inputs
	registryDir, outDir string
	logoFile            string
	vipActions          []string
	policy              string // the scoring policy whose actions the profile lists
}

func newRegistryCmd(ro *rootOptions) *cobra.Command {
	o := &registryOptions{chainOptions: newChainOptions()}
	in := &o.in
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
		RunE: ro.runs(o.writeRegistryEntry),
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
	f.StringVar(&o.logoFile, "logo-file", "", "PNG image (<= 100 KB) to add to the registry's images/ as <name>.png (with --registry-dir)")
	f.StringVar(&in.AssetSymbol, "asset-symbol", "", "symbol of the first fee token, e.g. INIT")
	f.StringVar(&in.AssetName, "asset-name", "", "name of the first fee token (<= 42 characters)")
	f.IntVar(&in.AssetDecimals, "asset-decimals", 0, "decimals of the first fee token's display unit")
	f.StringVar(&in.Category, "category", "", "profile: category, one of "+strings.Join(registry.Categories, ", "))
	f.StringVar(&in.Summary, "summary", "", "profile: a summary of at most 50 characters")
	f.StringVar(&in.Color, "color", "", "profile: colour as #RRGGBB")
	f.StringVar(&in.Twitter, "twitter", "", "profile: https://x.com/... link")
	f.StringVar(&in.Status, "status", "live", "profile: "+strings.Join(registry.Statuses, ", "))
	f.StringArrayVar(&o.vipActions, "vip-action", nil, `profile: a scored user action, "Title: description" (repeatable)`)
	f.StringVar(&o.policy, "policy", "", "profile: vip.actions from this scoring policy's actions (instead of --vip-action)")
	f.StringVar(&o.registryDir, "registry-dir", "", "a checkout of initia-labs/initia-registry to write into")
	f.StringVar(&o.outDir, "out", "registry", "folder to write into when there is no --registry-dir")

	validate := &cobra.Command{
		Use:   "validate PATH",
		Short: "Check an entry (PATH = <registry>/<network>s/<name>) against the registry's rules; each broken rule names its field",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sess, err := ro.session(cmd)
			if err != nil {
				return err
			}
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
				return problemsError(sess, fmt.Sprintf("registry validate: %s breaks %d rule(s) (schemas: %s)", args[0], len(problems), files.Schemas.Source), problems)
			}
			return sess.printResult(map[string]any{"path": args[0], "schemas": files.Schemas.Source, "problems": []registry.Problem{}},
				fmt.Sprintf("%s: the entry passes the registry's rules (schemas: %s)", args[0], files.Schemas.Source))
		},
	}
	cmd.AddCommand(validate)
	return o.addFlags(cmd, "rpc", "rest", "network")
}

// problemsError prints the problems (a list, or JSON) and returns the invalid-input exit.
func problemsError(sess session, head string, problems []registry.Problem) error {
	problems = problemAdvice(problems)
	if sess.jsonOut {
		_ = sess.printResult(map[string]any{"problems": problems}, "")
		return &exitError{exitInvalid, errors.New(head)}
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "  " + p.String()
	}
	return invalid(fmt.Errorf("%s:\n%s", head, strings.Join(lines, "\n")))
}

// problemAdvice adds to each problem the command that mends it, where one does.
func problemAdvice(problems []registry.Problem) []registry.Problem {
	out := slices.Clone(problems)
	for i, p := range out {
		if p.Rule == registry.RulePrettier {
			out[i].Message += "; vipctl registry writes it formatted"
		}
	}
	return out
}

// registryOutput is what `registry --json` prints: the files written and the next step.
type registryOutput struct {
	Files   []string `json:"files"`
	ChainID string   `json:"chain_id"`
	Minitia string   `json:"minitia"`
	Next    string   `json:"next"`
}

// registryNext is the step after w: a pull request from a registry checkout, else a
// review and a validation of the files where they were written.
func registryNext(w registry.Written) string {
	if w.InCheckout {
		return "commit the files on a branch of your initia-registry fork and open a pull request"
	}
	return "review the files, then validate them in place: vipctl registry validate " + w.Entry
}

// writeRegistryEntry reads the logo file, then has registry.Write build, check and write
// the entry; its refusals name the flags behind them.
func (o *registryOptions) writeRegistryEntry(ctx context.Context, sess session) error {
	req := registry.Request{Inputs: o.in, Rollup: &probe.Client{REST: o.rest, JSONRPC: o.rpc}, RegistryDir: o.registryDir, Out: o.outDir}
	req.Inputs.Network = o.network
	if o.policy != "" {
		if len(o.vipActions) > 0 {
			return invalid(errors.New("registry: --policy and --vip-action both name the profile's vip.actions: pass one"))
		}
		p, err := loadPolicy(computeOptions{policy: o.policy})
		if err != nil {
			return err
		}
		if len(p.Actions) == 0 {
			return invalid(fmt.Errorf("registry: --policy %s lists no actions: add actions (title, description) to it", o.policy))
		}
		for _, a := range p.Actions {
			req.Inputs.VIPActions = append(req.Inputs.VIPActions, registry.Action{Title: a.Title, Description: a.Description})
		}
	}
	for _, a := range o.vipActions {
		title, desc, _ := strings.Cut(a, ":")
		req.Inputs.VIPActions = append(req.Inputs.VIPActions, registry.Action{Title: strings.TrimSpace(title), Description: strings.TrimSpace(desc)})
	}
	if o.logoFile != "" {
		var err error
		if req.Logo, err = os.ReadFile(o.logoFile); err != nil {
			return invalid(fmt.Errorf("registry: --logo-file: %w", err))
		}
	}
	w, err := registry.Write(ctx, req)
	var pe *registry.ProblemsError
	var ie *registry.InputError
	switch {
	case errors.As(err, &pe):
		return problemsError(sess, "registry: the entry breaks the registry's rules; nothing written", pe.Problems)
	case errors.As(err, &ie): // one or more refused inputs, joined
		return invalid(fmt.Errorf("registry: %w", registryFlagNames(err, o.logoFile)))
	case err != nil:
		return fmt.Errorf("registry: %w", err)
	}
	out := registryOutput{Files: w.Files, ChainID: w.ChainID, Minitia: w.Minitia, Next: registryNext(w)}
	return sess.printResult(out, "wrote\n  "+strings.Join(out.Files, "\n  ")+"\nnext: "+out.Next)
}

// registryFlagNames names the flag behind each input registry refused.
func registryFlagNames(err error, logoFile string) error {
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
		case "logo-file":
			name = "--logo-file " + logoFile
		case "rest":
			name = "--rest (or REST_URL)"
		case "rpc":
			name = "--rpc (or JSON_RPC_URL)"
		case "chain-id", "gas-prices":
			name = "the rollup (--rest)"
		}
		out = append(out, fmt.Errorf("%s: %w", name, ie.Err))
	}
	return errors.Join(out...)
}
