package whitelist

import (
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/deployer"
)

func vmLabel(vm deployer.VM) string {
	switch vm {
	case deployer.EVM:
		return "MiniEVM"
	case deployer.Move:
		return "MiniMove"
	case deployer.Wasm:
		return "MiniWasm"
	}
	return string(vm)
}

// ForumPost is the whitelisting post for the Initia forum, in the template's sections:
// proposer information, TL;DR, background, rationale and impact with the scoring policy, and
// the details table.
func (c *Checked) ForumPost() string {
	var b strings.Builder
	section := func(title, body string) {
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", title, strings.TrimSpace(body))
	}
	fmt.Fprintf(&b, "# [VIP Whitelist] %s\n\n", strings.TrimSpace(c.Name))
	section("Proposer Information", c.Proposer)
	section("TL;DR", c.TLDR)
	background := strings.TrimSpace(c.Background)
	if background == "" {
		background = fmt.Sprintf("%s is a %s rollup (chain id `%s`) settling on Initia through OPinit bridge %d.",
			strings.TrimSpace(c.Name), vmLabel(c.VM), strings.TrimSpace(c.ChainID), c.BridgeID)
	}
	section("Background", background)
	rationale := strings.TrimSpace(c.Rationale)
	if rationale != "" {
		rationale += "\n\n"
	}
	rationale += "### Scoring policy\n\n" + strings.TrimSpace(c.ScoringPolicy)
	section("Rationale and Impact", rationale)

	b.WriteString("## Details\n\n")
	rows := [][2]string{
		{"Rollup", strings.TrimSpace(c.Name)},
		{"Chain ID", "`" + strings.TrimSpace(c.ChainID) + "`"},
		{"VM type", fmt.Sprintf("%s (vm_type %d)", vmLabel(c.VM), c.vmType)},
		{"Operator address", "`" + strings.TrimSpace(c.Operator) + "`"},
		{"Bridge ID", fmt.Sprint(c.BridgeID)},
		{"Bridge address", "`" + strings.TrimSpace(c.BridgeAddress) + "`"},
		{"Scoring contract address", "`" + strings.TrimSpace(c.ScoreContract) + "`"},
		{"Operator commission rate", c.rate.Percent()},
		{"Operator commission max rate", c.maxRate.Percent()},
		{"Operator commission max change rate", c.maxChangeRate.Percent()},
	}
	b.WriteString("| Field | Value |\n| --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], strings.ReplaceAll(r[1], "|", `\|`))
	}
	b.WriteString("\nThe governance proposal calls `vip::register` on the VIP module `" + "0x" + fmt.Sprintf("%x", c.vip) + "` with these values.\n")
	return b.String()
}

// TestnetNote is what a testnet rollup sends to the Initia maintainers instead of a proposal.
func (c *Checked) TestnetNote() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# VIP registration request (testnet): %s\n\n", strings.TrimSpace(c.Name))
	b.WriteString("Testnet rollups are registered in the VIP module by the Initia maintainers, not by a\n" +
		"governance proposal. Send them these values (for example through the Initia Discord's\n" +
		"developer channels or your Initia contact), together with the link to your rollup's\n" +
		"entry in the initia-registry (`vipctl registry`).\n\n")
	b.WriteString("| Field | Value |\n| --- | --- |\n")
	rows := [][2]string{
		{"Chain ID", strings.TrimSpace(c.ChainID)},
		{"VM type", fmt.Sprintf("%s (vm_type %d)", vmLabel(c.VM), c.vmType)},
		{"Operator address", strings.TrimSpace(c.Operator)},
		{"Bridge ID", fmt.Sprint(c.BridgeID)},
		{"Bridge address", strings.TrimSpace(c.BridgeAddress)},
		{"Scoring contract address", strings.TrimSpace(c.ScoreContract)},
		{"Operator commission rate", c.rate.String()},
		{"Operator commission max rate", c.maxRate.String()},
		{"Operator commission max change rate", c.maxChangeRate.String()},
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | `%s` |\n", r[0], r[1])
	}
	fmt.Fprintf(&b, "\nThey call `vip::register` on the testnet VIP module `0x%x` with these values.\n", c.vip)
	return b.String()
}
