// Package wasmddev turns wasmd into a single-validator Wasm rollup stand-in: a home with a
// genesis that funds fresh test accounts, fast blocks (timeout_commit 200ms), every listener
// on 127.0.0.1, and the node's arguments. The process engine runs it.
package wasmddev

import (
	"bytes"
	"context"

	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
)

// Binary is the file name `make nodes` gives the wasmd build.
const Binary = "wasmd-v0.61.14"

// Chain settings of the stand-in. The prefix, denom and gas price differ from the
// embedded Wasm rollup's on purpose: deployers must read them from the chain or flags.
const (
	ChainID  = "vip-wasmd-1"
	Prefix   = "wasm"
	Denom    = "stake"
	GasPrice = "0.025" + Denom
)

// Ports are the node's loopback listeners.
type Ports struct {
	RPC, P2P, REST, GRPC, App int
}

// Init creates a wasmd home in dir: a validator and funded accounts whose mnemonics are
// returned (throwaway test keys).
func Init(ctx context.Context, bin, dir string, funded int) ([]localnet.Account, error) {
	run := func(stdin string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, append(args, "--home", dir)...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("wasmd %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
		}
		return out.Bytes(), nil
	}
	if _, err := run("", "init", "vipharness", "--chain-id", ChainID, "--default-denom", Denom); err != nil {
		return nil, err
	}
	var accounts []localnet.Account
	for i := range funded + 1 {
		mnemonic, err := minitia.NewMnemonic()
		if err != nil {
			return nil, err
		}
		acct, err := minitia.DeriveAccount(mnemonic, vip.Secp256k1, Prefix)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("acct%d", i)
		if _, err := run(mnemonic+"\n", "keys", "add", name, "--recover", "--keyring-backend", "test"); err != nil {
			return nil, err
		}
		if _, err := run("", "genesis", "add-genesis-account", acct.Address, "1000000000000000"+Denom, "--keyring-backend", "test"); err != nil {
			return nil, err
		}
		if i > 0 {
			accounts = append(accounts, localnet.Account{Address: acct.Address, Mnemonic: mnemonic, PrivateKey: acct.PrivateKey})
		}
	}
	// acct0 is the validator.
	if _, err := run("", "genesis", "gentx", "acct0", "100000000"+Denom, "--chain-id", ChainID, "--keyring-backend", "test"); err != nil {
		return nil, err
	}
	if _, err := run("", "genesis", "collect-gentxs"); err != nil {
		return nil, err
	}
	return accounts, nil
}

// Configure writes the listeners and block timing into the home's config files.
func Configure(dir string, p Ports) error { return ConfigureOn(dir, "127.0.0.1", p) }

// DefaultPorts are wasmd's own ports, which a node alone in its container keeps.
var DefaultPorts = Ports{RPC: 26657, P2P: 26656, REST: 1317, GRPC: 9090, App: 26658}

// ConfigureOn is Configure with CometBFT RPC and the REST gateway listening on host (a
// container's node listens on 0.0.0.0, for Docker to publish); the other listeners stay
// on 127.0.0.1.
func ConfigureOn(dir, host string, p Ports) error {
	cfg := filepath.Join(dir, "config", "config.toml")
	if err := edit(cfg, map[string]string{
		"laddr = \"tcp://127.0.0.1:26657\"":     fmt.Sprintf("laddr = \"tcp://%s:%d\"", host, p.RPC),
		"laddr = \"tcp://0.0.0.0:26656\"":       fmt.Sprintf("laddr = \"tcp://127.0.0.1:%d\"", p.P2P),
		"proxy_app = \"tcp://127.0.0.1:26658\"": fmt.Sprintf("proxy_app = \"tcp://127.0.0.1:%d\"", p.App),
		"pprof_laddr = \"localhost:6060\"":      "pprof_laddr = \"\"",
		"timeout_commit = \"5s\"":               "timeout_commit = \"200ms\"",
		"addr_book_strict = true":               "addr_book_strict = false",
		"pex = true":                            "pex = false",
	}); err != nil {
		return err
	}
	app := filepath.Join(dir, "config", "app.toml")
	return edit(app, map[string]string{
		"minimum-gas-prices = \"0" + Denom + "\"": fmt.Sprintf("minimum-gas-prices = \"%s\"", GasPrice),
		"address = \"tcp://localhost:1317\"":      fmt.Sprintf("address = \"tcp://%s:%d\"", host, p.REST),
		"address = \"localhost:9090\"":            fmt.Sprintf("address = \"127.0.0.1:%d\"", p.GRPC),
		"enable = false\n\n# Swagger":             "enable = true\n\n# Swagger",
	})
}

// edit replaces each old text with its new text; every old text must be found.
func edit(path string, repl map[string]string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("configure wasmd: %w", err)
	}
	s := string(b)
	for old, replacement := range repl {
		if !strings.Contains(s, old) {
			return fmt.Errorf("configure wasmd: %s has no %q (wasmd version changed?)", filepath.Base(path), old)
		}
		s = strings.Replace(s, old, replacement, 1)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// Args are wasmd's start arguments.
func Args(dir string) []string {
	return []string{"start", "--home", dir, "--log_level", "info"}
}

var heightRE = regexp.MustCompile(`"latest_block_height"\s*:\s*"(\d+)"`)

// Height reads the latest block height from the node's CometBFT status.
func Height(body []byte) (string, bool) {
	m := heightRE.FindSubmatch(body)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// Prepare makes a ready-to-start home in dir: Init with two funded accounts, free loopback
// ports, and Configure. The engines then only differ in how they run `wasmd start`.
func Prepare(ctx context.Context, bin, dir string) ([]localnet.Account, Ports, error) {
	accounts, err := Init(ctx, bin, dir, 2)
	if err != nil {
		return nil, Ports{}, err
	}
	ports, err := localnet.FreePorts(5)
	if err != nil {
		return nil, Ports{}, err
	}
	p := Ports{RPC: ports[0], P2P: ports[1], REST: ports[2], GRPC: ports[3], App: ports[4]}
	if err := Configure(dir, p); err != nil {
		return nil, Ports{}, err
	}
	return accounts, p, nil
}

// URLs are the CometBFT RPC and REST base URLs of p.
func (p Ports) URLs() (rpc, rest string) {
	return "http://127.0.0.1:" + strconv.Itoa(p.RPC), "http://127.0.0.1:" + strconv.Itoa(p.REST)
}
