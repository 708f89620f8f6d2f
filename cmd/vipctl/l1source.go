package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"github.com/vipharness/vipharness/bindings/l1node"
)

// l1Values are the L1 settings from one source (the command line or the environment); ""
// is not given.
type l1Values struct {
	Network, REST, VIP string
}

// l1Setting is one resolved value and where it came from ("--vip-address",
// "VIP_MODULE_ADDRESS", "--network mainnet", ...), for messages.
type l1Setting struct {
	Value, From string
}

// l1Source is the L1 a command works against.
type l1Source struct {
	Network string // the preset's name, or "" without one
	REST    l1Setting
	VIP     l1Setting
}

// l1Inputs splits the L1 flags into what the command line set and what the environment
// holds (getenv: os.Getenv, or operate's --env-file over it): the flags default to the
// environment, so their values alone cannot tell.
func l1Inputs(fs *pflag.FlagSet, getenv func(string) string) (flag, env l1Values) {
	env = l1Values{Network: getenv("NETWORK"), REST: getenv("L1_REST_URL"), VIP: getenv("VIP_MODULE_ADDRESS")}
	get := func(name string) string {
		if f := fs.Lookup(name); f != nil && f.Changed {
			return f.Value.String()
		}
		return ""
	}
	return l1Values{Network: get("network"), REST: get("l1-rest"), VIP: get("vip-address")}, env
}

// resolveL1 picks the L1 settings and refuses contradictions instead of letting one source
// silently win: a flag and its environment variable that differ, and a --network/NETWORK
// preset whose REST URL or VIP module address differs from one given beside it, unless both
// were typed on the command line (an explicit override). A stale `source
// .vipharness/localnet.env` must not put the localnet's VIP module into a mainnet proposal.
// needREST says whether the command reads the L1 (the REST URL is checked only then).
func resolveL1(flag, env l1Values, needREST bool) (l1Source, error) {
	var src l1Source
	network, err := pick("--network", "NETWORK", flag.Network, env.Network, sameNetwork)
	if err != nil {
		return src, err
	}
	vip, err := pick("--vip-address", "VIP_MODULE_ADDRESS", flag.VIP, env.VIP, sameAddress)
	if err != nil {
		return src, err
	}
	src.VIP = vip
	var rest l1Setting
	if needREST {
		if rest, err = pick("--l1-rest", "L1_REST_URL", flag.REST, env.REST, sameURL); err != nil {
			return src, err
		}
		src.REST = rest
	}
	if network.Value == "" {
		return src, nil
	}
	p, err := l1node.Preset(network.Value)
	if err != nil {
		return src, fmt.Errorf("%s: %w (--l1-rest and --vip-address)", network.From, err)
	}
	src.Network = p.Name
	from := "the environment's NETWORK=" + p.Name
	fromFlag := strings.HasPrefix(network.From, "--")
	if fromFlag {
		from = "--network " + p.Name
	}
	for _, c := range []struct {
		what, preset string
		got          *l1Setting
		same         func(a, b string) bool
		flag         string
		check        bool
	}{
		{"VIP module address", p.VIPAddress, &src.VIP, sameAddress, "--vip-address", true},
		{"L1 REST URL", p.REST, &src.REST, sameURL, "--l1-rest", needREST},
	} {
		if !c.check {
			continue
		}
		if c.got.Value == "" {
			*c.got = l1Setting{c.preset, from}
			continue
		}
		if c.same(c.got.Value, c.preset) || (fromFlag && strings.HasPrefix(c.got.From, "--")) {
			continue
		}
		return src, fmt.Errorf("%s gives the %s %s but %s gives %s: refusing to guess which is meant; drop the one you do not mean (a sourced localnet.env sets VIP_MODULE_ADDRESS and L1_REST_URL), or give both --network and %s on the command line to override the preset",
			from, c.what, c.preset, describe(*c.got), c.got.Value, c.flag)
	}
	return src, nil
}

// pick is the flag's value, else the environment's; both given and different is refused.
func pick(flagName, envName, flagVal, envVal string, same func(a, b string) bool) (l1Setting, error) {
	switch {
	case flagVal != "" && envVal != "" && !same(flagVal, envVal):
		return l1Setting{}, fmt.Errorf("%s %s and %s=%s disagree: unset %s or drop the flag", flagName, flagVal, envName, envVal, envName)
	case flagVal != "":
		return l1Setting{flagVal, flagName}, nil
	case envVal != "":
		return l1Setting{envVal, envName}, nil
	}
	return l1Setting{}, nil
}

// describe names where a setting came from, as "the environment's X" or "the flag --x".
func describe(s l1Setting) string {
	if strings.HasPrefix(s.From, "--") {
		return s.From
	}
	return "the environment's " + s.From
}

func sameNetwork(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

func sameURL(a, b string) bool {
	return strings.TrimRight(strings.TrimSpace(a), "/") == strings.TrimRight(strings.TrimSpace(b), "/")
}

// sameAddress compares Move addresses as numbers: 0x1 is 0x0...01; case does not matter.
func sameAddress(a, b string) bool {
	norm := func(s string) string {
		h := strings.ToLower(strings.TrimSpace(s))
		h = strings.TrimPrefix(h, "0x")
		return strings.TrimLeft(h, "0")
	}
	return norm(a) == norm(b)
}
