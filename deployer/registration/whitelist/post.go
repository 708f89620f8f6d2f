package whitelist

import (
	"fmt"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

func vmLabel(vm vip.VM) string {
	if spec, err := vip.Describe(vm); err == nil {
		return spec.Label
	}
	return string(vm)
}

// ForumPost is the whitelisting post for the Initia forum, in the template's numbered
// sections: 0 proposer info, 1 TL;DR, 2 background, 3 rationale and impact with the scoring
// criteria, 4 the proposal's details (the values the governance proposal registers).
func (c *Checked) ForumPost() string {
	var b strings.Builder
	bullets := func(items [][2]string) {
		for _, it := range items {
			if v := strings.TrimSpace(it[1]); v != "" {
				fmt.Fprintf(&b, "- %s: %s\n", it[0], v)
			}
		}
		b.WriteString("\n")
	}
	name := strings.TrimSpace(c.Name)
	fmt.Fprintf(&b, "# Whitelist %s on VIP\n\n", name)

	b.WriteString("## 0. Proposer Info\n\n")
	bullets([][2]string{{"Proposer", c.Proposer}, {"Email", c.Email}, {"Project URL", c.ProjectURL}, {"X (Twitter)", c.XAccount}})

	fmt.Fprintf(&b, "## 1. TL;DR\n\n%s\n\n", strings.TrimSpace(c.TLDR))

	b.WriteString("## 2. Background\n\n### 2-1 About the project\n\n")
	background := strings.TrimSpace(c.Background)
	if background == "" {
		background = fmt.Sprintf("%s is a %s rollup (chain id `%s`) settling on Initia through OPinit bridge %d.",
			name, vmLabel(c.VM), strings.TrimSpace(c.ChainID), c.BridgeID)
	}
	b.WriteString(background + "\n\n")
	bullets([][2]string{{"Protocol type", c.ProtocolType}, {"Docs", c.Docs}, {"Audits", c.Audits}})

	b.WriteString("## 3. Rationale & Impact\n\n")
	if r := strings.TrimSpace(c.Rationale); r != "" {
		b.WriteString(r + "\n\n")
	}
	b.WriteString("### VIP scoring criteria\n\n" + strings.TrimSpace(c.ScoringPolicy) + "\n\n")

	b.WriteString("## 4. Proposal Details\n\n")
	rows := [][2]string{
		{"Operator Address", "`" + strings.TrimSpace(c.Operator) + "`"},
		{"Bridge ID", fmt.Sprint(c.BridgeID)},
		{"Bridge Address", "`" + strings.TrimSpace(c.BridgeAddress) + "`"},
		{"Scoring Contract Address", "`" + strings.TrimSpace(c.ScoreContract) + "`"},
		{"VM Type", fmt.Sprintf("%s (vm_type %d)", vmLabel(c.VM), c.vmType)},
		{"Operator Commission Rate", c.rate.Percent()},
		{"Operator Commission Max Rate", c.maxRate.Percent()},
		{"Operator Commission Max Change Rate", c.maxChangeRate.Percent()},
		{"Chain ID", "`" + strings.TrimSpace(c.ChainID) + "`"},
	}
	b.WriteString("| Field | Value |\n| --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], strings.ReplaceAll(r[1], "|", `\|`))
	}
	fmt.Fprintf(&b, "\nThe governance proposal calls `vip::register` on the VIP module `0x%x` with these values.\n", c.vip)
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
