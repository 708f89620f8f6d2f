package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/cometface"
)

// GethBinary is the file name `make nodes` gives the geth build.
const GethBinary = "geth-v1.17.8"

// gethDevKey is the funded account of every `geth --dev` chain (geth's public, fixed
// developer key: a test key, never a secret).
const gethDevKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// GethGasLimit is the block gas limit of the geth rollup, as the embedded chain's.
const GethGasLimit = 60_000_000

// futureForks are the genesis config keys geth --dev enables that a rollup does not have
// yet; dropping them gives Osaka/Prague gas (see FACTS: EIP-8037/8038 state gas).
var futureForks = []string{"amsterdamTime", "bogotaTime"}

// GethRollup is `geth --dev` run as a rollup: JSON-RPC on loopback, a CometBFT face for
// abci_info beside it.
type GethRollup struct {
	node    *node
	rpc     string
	chainID *big.Int
	comet   *cometface.Server
	client  *ethclient.Client
}

var _ localnet.Rollup = (*GethRollup)(nil)

// StartGeth runs geth from bin in a fresh temporary home and waits until it answers.
func StartGeth(ctx context.Context, bin string, logger *slog.Logger) (_ *GethRollup, err error) {
	home, err := os.MkdirTemp("", "vipharness-geth-")
	if err != nil {
		return nil, fmt.Errorf("geth home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	data := filepath.Join(home, "data")
	genesis, err := gethGenesis(ctx, bin, home)
	if err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, bin, "init", "--datadir", data, genesis).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("geth init: %w: %s", err, lastLines(string(out), 10))
	}
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	n, err := start("geth", bin, home, logger,
		"--dev", "--dev.period", "0", "--dev.gaslimit", itoa(GethGasLimit),
		"--datadir", data, "--ipcdisable", "--nat", "none",
		"--http", "--http.addr", "127.0.0.1", "--http.port", itoa(ports[0]), "--http.api", "eth,net,web3,txpool,debug",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", itoa(ports[1]),
		"--rpc.gascap", "0", "--rpc.txfeecap", "0", "--verbosity", "3")
	if err != nil {
		return nil, err
	}
	r := &GethRollup{node: n, rpc: fmt.Sprintf("http://127.0.0.1:%d", ports[0])}
	defer func() {
		if err != nil {
			_ = r.Stop(context.Background())
		}
	}()
	ready, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := waitReady(ready, n, func(ctx context.Context) error {
		c, err := ethclient.DialContext(ctx, r.rpc)
		if err != nil {
			return err
		}
		id, err := c.ChainID(ctx)
		if err != nil {
			c.Close()
			return err
		}
		r.client, r.chainID = c, id
		return nil
	}); err != nil {
		return nil, err
	}
	version := "geth"
	var clientVersion string
	if err := r.client.Client().CallContext(ctx, &clientVersion, "web3_clientVersion"); err == nil {
		version = clientVersion
	}
	r.comet, err = cometface.Start(cometface.Info{App: "geth-dev", Version: version, Network: "evm-" + r.chainID.String(), Head: r.head})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// gethGenesis writes geth's dev genesis without the future forks.
func gethGenesis(ctx context.Context, bin, home string) (string, error) {
	out, err := exec.CommandContext(ctx, bin, "--dev", "--dev.gaslimit", itoa(GethGasLimit), "dumpgenesis").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("geth dumpgenesis: %w: %s", err, lastLines(string(ee.Stderr), 10))
		}
		return "", fmt.Errorf("geth dumpgenesis: %w", err)
	}
	var g map[string]any
	if err := json.Unmarshal(out, &g); err != nil {
		return "", fmt.Errorf("geth dumpgenesis: %w", err)
	}
	cfg, ok := g["config"].(map[string]any)
	if !ok {
		return "", errors.New("geth dumpgenesis: no config object")
	}
	for _, k := range futureForks {
		delete(cfg, k)
	}
	if sched, ok := cfg["blobSchedule"].(map[string]any); ok {
		for name := range sched {
			if name == "amsterdam" || name == "bogota" {
				delete(sched, name)
			}
		}
	}
	g["gasLimit"] = fmt.Sprintf("0x%x", GethGasLimit)
	// Fund the developer account in the genesis we init with (dumpgenesis leaves it out
	// when no keystore exists yet).
	alloc, _ := g["alloc"].(map[string]any)
	if alloc == nil {
		alloc = map[string]any{}
		g["alloc"] = alloc
	}
	k, _ := crypto.HexToECDSA(gethDevKey)
	alloc[crypto.PubkeyToAddress(k.PublicKey).Hex()] = map[string]any{"balance": "0x" + new(big.Int).Lsh(big.NewInt(1), 200).Text(16)}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(home, "genesis.json")
	return path, os.WriteFile(path, b, 0o644)
}

func (r *GethRollup) head(ctx context.Context) (uint64, []byte, error) {
	h, err := r.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, nil, err
	}
	return h.Number.Uint64(), h.Root.Bytes(), nil
}

// VM is EVM.
func (r *GethRollup) VM() deployer.VM { return deployer.EVM }

// ChainID is geth --dev's chain id (1337).
func (r *GethRollup) ChainID() string { return r.chainID.String() }

// Endpoints are the JSON-RPC and CometBFT face URLs.
func (r *GethRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{JSONRPC: r.rpc, CometRPC: r.comet.URL()}
}

// Funded is geth's developer account.
func (r *GethRollup) Funded() []localnet.Account {
	k, _ := crypto.HexToECDSA(gethDevKey)
	return []localnet.Account{{Address: crypto.PubkeyToAddress(k.PublicKey).Hex(), PrivateKey: gethDevKey}}
}

// Logs is the tail of geth's log, for failed specs.
func (r *GethRollup) Logs() string { return r.node.Logs() }

// Stop stops geth by PID and removes its home.
func (r *GethRollup) Stop(ctx context.Context) error {
	var errs []error
	if r.comet != nil {
		errs = append(errs, r.comet.Close())
	}
	if r.client != nil {
		r.client.Close()
	}
	errs = append(errs, r.node.stop(10*time.Second))
	errs = append(errs, os.RemoveAll(r.node.home))
	return errors.Join(errs...)
}

// String names the process for logs.
func (r *GethRollup) String() string {
	return fmt.Sprintf("geth pid %d %s", r.node.cmd.Process.Pid, strings.TrimPrefix(r.rpc, "http://"))
}
