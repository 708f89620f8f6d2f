package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/registration/whitelist"
	"github.com/vipharness/vipharness/deployer/vip"
)

// whitelistOptions are whitelist's flags.
type whitelistOptions struct {
	*chainOptions                // --vm, --rest, --contract and the L1's
	r                            whitelist.Request
	policyFile, outDir, proposer string
	tldr, background, rationale  string
	policy                       computeOptions // --policy: the formulas go into the forum post
}

func newWhitelistCmd(ro *rootOptions) *cobra.Command {
	o := &whitelistOptions{chainOptions: newChainOptions()}
	cmd := &cobra.Command{
		Use:   "whitelist --network mainnet|testnet --out DIR ...",
		Short: "Prepare the VIP whitelisting: forum post and governance proposal (mainnet), or the note for the maintainers (testnet)",
		Long: `Writes into --out:
  mainnet: forum-post.md (the forum template's sections), proposal.json (for
           initiad tx gov submit-proposal), and with --proposer-address also
           msg-submit-proposal.json (the MsgSubmitProposal itself);
  testnet: testnet-note.md (what to send to the Initia maintainers).
The proposal's MsgGovExecute calls vip::register on the L1 VIP module with its
arguments BCS-encoded. Text flags take the text, or @FILE to read it from a file.`,
		Args: cobra.NoArgs,
		RunE: ro.runs(o.prepareWhitelist),
	}
	f := cmd.Flags()
	f.StringVar(&o.outDir, "out", "whitelist", "folder to write the files into")
	f.StringVar(&o.r.Name, "name", "", "the rollup's pretty name")
	f.StringVar(&o.r.ChainID, "chain-id", "", "the rollup's chain id (default with --rest: the rollup's node_info)")
	f.StringVar(&o.r.Operator, "operator", "", "L1 address that receives the operator commission (init1... or 0x)")
	f.Uint64Var(&o.r.BridgeID, "bridge-id", 0, "the rollup's OPinit bridge id on the L1 (default with --rest: the rollup's bridge_info)")
	f.StringVar(&o.r.BridgeAddress, "bridge-address", "", "the bridge's L1 address, init1... or 0x (default with --rest: the rollup's bridge_info)")
	f.StringVar(&o.r.MaxRate, "max-rate", "", "operator commission max rate, a decimal in [0, 1] such as 0.2")
	f.StringVar(&o.r.MaxChangeRate, "max-change-rate", "", "operator commission max change per stage, in [0, 1]")
	f.StringVar(&o.r.Rate, "rate", "", "operator commission rate, in [0, max-rate]")
	f.StringVar(&o.r.Sender, "sender", "", "who signs register inside the proposal: the VIP module address (default) or 0x1")
	f.StringVar(&o.proposer, "proposer-address", "", "L1 address submitting the proposal; also writes msg-submit-proposal.json")
	f.StringVar(&o.r.Proposer, "proposer", "", "forum post: who proposes (project or team name)")
	f.StringVar(&o.r.Email, "email", "", "forum post: the proposer's email")
	f.StringVar(&o.r.ProjectURL, "project-url", "", "forum post: the project's URL")
	f.StringVar(&o.r.XAccount, "x-account", "", "forum post: the project's X (Twitter) account URL")
	f.StringVar(&o.r.ProtocolType, "protocol-type", "", "forum post: protocol type (DEX, lending, gaming, ...)")
	f.StringVar(&o.r.Docs, "docs", "", "forum post: documentation link")
	f.StringVar(&o.r.Audits, "audits", "", "forum post: audit links, or N/A")
	f.StringVar(&o.tldr, "tldr", "", "forum post: TL;DR (text or @FILE)")
	f.StringVar(&o.background, "background", "", "forum post: background (text or @FILE; default: derived)")
	f.StringVar(&o.rationale, "rationale", "", "forum post: rationale and impact (text or @FILE)")
	f.StringVar(&o.policyFile, "scoring-policy", "", "forum post: markdown FILE with the scoring policy and formulas")
	f.StringVar(&o.policy.policy, "policy", "", "forum post: the scoring policy (YAML) whose formulas, in mathematical notation, go under the scoring criteria (after --scoring-policy's text)")
	f.StringArrayVar(&o.policy.params, "param", nil, "with --policy: a policy param: name=value (repeatable), e.g. the contracts it reads")
	f.StringVar(&o.r.Deposit, "deposit", "", "proposal deposit such as 100000000uinit (the L1's min deposit)")
	f.StringVar(&o.r.Title, "title", "", "proposal title (default: derived)")
	f.StringVar(&o.r.Summary, "summary", "", "proposal summary (default: derived)")
	f.StringVar(&o.r.Metadata, "metadata", "", "proposal metadata, e.g. the forum post's URL")
	return o.addFlags(cmd, "vm", "rest", "contract", l1Flags)
}

// prepareWhitelist writes the whitelisting files of the network: the forum post and the
// governance proposal (mainnet), or the note for the maintainers (testnet).
func (o *whitelistOptions) prepareWhitelist(ctx context.Context, sess session) error {
	r, policyFile, outDir, proposer := o.r, o.policyFile, o.outDir, o.proposer
	tldr, background, rationale := o.tldr, o.background, o.rationale
	vm, _ := vip.ParseVM(o.vm)
	r.VM = vm
	r.Network = o.network
	r.ScoreContract = o.contract
	// The proposal goes to the VIP module of --network: a VIP_MODULE_ADDRESS left in
	// the environment (a sourced localnet.env) that disagrees is refused, not used.
	src, err := o.l1Source(false)
	if err != nil {
		return fmt.Errorf("whitelist: %w", err)
	}
	r.VIPAddress = src.VIP.Value
	if src.Network != "" {
		r.Network = src.Network
	}
	if r.ChainID == "" && o.rest != "" {
		// The rollup names itself.
		info, err := cosmosnode.New(o.rest, "", nil).NodeInfo(ctx)
		if err != nil {
			return invalid(fmt.Errorf("whitelist: read the chain id from the rollup (or pass --chain-id): %w", err))
		}
		r.ChainID = info.Network
	}
	if (r.BridgeID == 0 || r.BridgeAddress == "") && o.rest != "" {
		// A minitia's opchild module knows its bridge.
		b, err := (&probe.Client{REST: o.rest}).BridgeInfo(ctx)
		if err != nil {
			return invalid(fmt.Errorf("whitelist: read the bridge from the rollup (or pass --bridge-id and --bridge-address): %w", err))
		}
		if r.BridgeID == 0 {
			r.BridgeID = b.ID
		}
		if r.BridgeAddress == "" {
			r.BridgeAddress = b.Address
		}
	}
	var errs []error
	for _, t := range []struct {
		flag string
		in   string
		out  *string
	}{{"tldr", tldr, &r.TLDR}, {"background", background, &r.Background}, {"rationale", rationale, &r.Rationale}, {"scoring-policy", "@" + policyFile, &r.ScoringPolicy}} {
		if t.flag == "scoring-policy" && policyFile == "" {
			continue
		}
		v, err := textFlag(t.in)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", t.flag, err))
		}
		*t.out = v
	}
	if o.policy.policy != "" {
		p, err := loadPolicy(o.policy)
		if err != nil {
			return err
		}
		r.ScoringPolicy = strings.TrimSpace(strings.TrimSpace(r.ScoringPolicy) + "\n\n" + p.Formulas())
	}
	if outDir == "" {
		errs = append(errs, errors.New("--out: empty: the folder to write the files into"))
	}
	if len(errs) > 0 {
		return invalid(fmt.Errorf("whitelist: %w", errors.Join(errs...)))
	}
	c, err := r.Check()
	if err != nil {
		return invalid(fmt.Errorf("whitelist: %w", flagNames(err)))
	}
	files := map[string][]byte{}
	if c.Mainnet() {
		files["forum-post.md"] = []byte(c.ForumPost())
		if files["proposal.json"], err = c.ProposalFile(); err != nil {
			return err
		}
		if proposer != "" {
			if files["msg-submit-proposal.json"], err = c.SubmitProposalJSON(proposer); err != nil {
				return invalid(fmt.Errorf("whitelist: %w", flagNames(err)))
			}
		}
	} else {
		files["testnet-note.md"] = []byte(c.TestnetNote())
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("whitelist: %w", err)
	}
	var written []string
	for _, name := range []string{"forum-post.md", "proposal.json", "msg-submit-proposal.json", "testnet-note.md"} {
		b, ok := files[name]
		if !ok {
			continue
		}
		path := filepath.Join(outDir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fmt.Errorf("whitelist: write %s: %w", path, err)
		}
		written = append(written, path)
	}
	next := "send testnet-note.md to the Initia maintainers"
	if c.Mainnet() {
		next = "post forum-post.md on the Initia forum; after the discussion, submit: initiad tx gov submit-proposal " + filepath.Join(outDir, "proposal.json") + " --from <proposer>"
	}
	network := strings.ToLower(strings.TrimSpace(r.Network))
	return sess.printResult(map[string]any{"files": written, "network": network, "vip_module_address": r.VIPAddress, "vip_module_address_from": src.VIP.From, "next": next},
		fmt.Sprintf("wrote %s\nfor %s, VIP module %s (from %s)\nnext: %s", strings.Join(written, ", "), network, r.VIPAddress, src.VIP.From, next))
}

// textFlag is the flag's text, or a file's content for @FILE.
func textFlag(v string) (string, error) {
	path, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// flagNames says which flag (or global flag) each whitelist field comes from.
func flagNames(err error) error {
	global := map[string]string{"network": "--network", "vm": "--vm", "score-contract": "--contract", "vip-address": "--vip-address (or --network)"}
	var out []error
	for _, e := range unjoin(err) {
		var fe *whitelist.FieldError
		if errors.As(e, &fe) {
			name := "--" + fe.Field
			if n, ok := global[fe.Field]; ok {
				name = n
			}
			out = append(out, fmt.Errorf("%s: %w", name, fe.Err))
			continue
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
