// Package gethdev turns `geth --dev` into a rollup stand-in, whichever engine runs it
// (child process or container): a genesis with a rollup's gas rules, the node's arguments,
// its funded developer account, and the face a deployer reads (JSON-RPC plus a CometBFT
// abci_info face).
package gethdev

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/cometrpc"
)

// Binary is the file name `make nodes` gives the geth build.
const Binary = "geth-v1.17.8"

// GasLimit is the block gas limit, as the embedded chain's.
const GasLimit = 60_000_000

// devKey is the funded account of every `geth --dev` chain: geth's public, fixed developer
// key, a test key and never a secret.
const devKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// futureForks are genesis config keys geth --dev enables that rollups do not have yet;
// without them the chain charges Osaka/Prague gas (FACTS: EIP-8037/8038 state gas).
var futureForks = []string{"amsterdamTime", "bogotaTime"}

// DevAccount is the funded developer account.
func DevAccount() localnet.Account {
	k, _ := crypto.HexToECDSA(devKey)
	return localnet.Account{Address: crypto.PubkeyToAddress(k.PublicKey).Hex(), PrivateKey: devKey}
}

// Init writes a rollup genesis into dir and initializes dir/data with bin.
func Init(ctx context.Context, bin, dir string) error {
	out, err := exec.CommandContext(ctx, bin, "--dev", "dumpgenesis").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("geth dumpgenesis: %w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return fmt.Errorf("geth dumpgenesis: %w", err)
	}
	var g map[string]any
	if err := json.Unmarshal(out, &g); err != nil {
		return fmt.Errorf("geth dumpgenesis: %w", err)
	}
	cfg, ok := g["config"].(map[string]any)
	if !ok {
		return errors.New("geth dumpgenesis: no config object")
	}
	for _, k := range futureForks {
		delete(cfg, k)
	}
	g["gasLimit"] = fmt.Sprintf("0x%x", GasLimit)
	// dumpgenesis leaves the developer account out when no keystore exists yet.
	alloc, _ := g["alloc"].(map[string]any)
	if alloc == nil {
		alloc = map[string]any{}
		g["alloc"] = alloc
	}
	alloc[DevAccount().Address] = map[string]any{"balance": "0x" + new(big.Int).Lsh(big.NewInt(1), 200).Text(16)}
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	genesis := filepath.Join(dir, "genesis.json")
	if err := os.WriteFile(genesis, b, 0o644); err != nil {
		return fmt.Errorf("write genesis: %w", err)
	}
	if out, err := exec.CommandContext(ctx, bin, "init", "--datadir", filepath.Join(dir, "data"), genesis).CombinedOutput(); err != nil {
		return fmt.Errorf("geth init: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// Args are geth's arguments for a dev rollup on datadir, serving JSON-RPC and the engine
// API on 127.0.0.1 only, mining each tx as it arrives. The pool takes thousands of pipelined
// txs from one sender: with geth's default queue of 64 per account, a block sealed while a
// sender's txs wait in the queue can drop some of them and strand the rest behind the gap
// (see localnet/embedded's pipelinedPool).
func Args(datadir string, httpPort, authPort int) []string {
	return ArgsOn(datadir, "127.0.0.1", httpPort, authPort)
}

// ArgsOn is Args with JSON-RPC listening on host: a container's geth listens on 0.0.0.0
// for Docker to publish the port, and then answers whatever host name its clients reach
// the Docker host by (--http.vhosts); the engine API stays on the container's loopback.
func ArgsOn(datadir, host string, httpPort, authPort int) []string {
	const slots = "65536"
	var vhosts []string
	if host != "127.0.0.1" {
		vhosts = []string{"--http.vhosts", "*"}
	}
	return append([]string{
		"--txpool.accountslots", slots, "--txpool.globalslots", slots,
		"--txpool.accountqueue", slots, "--txpool.globalqueue", slots,
		"--dev", "--dev.period", "0", "--dev.gaslimit", strconv.Itoa(GasLimit),
		"--datadir", datadir, "--ipcdisable", "--nat", "none",
		"--http", "--http.addr", host, "--http.port", strconv.Itoa(httpPort), "--http.api", "eth,net,web3,txpool,debug",
		// WebSocket on the HTTP port (geth shares the listener), as minievm serves eth_subscribe.
		"--ws", "--ws.addr", host, "--ws.port", strconv.Itoa(httpPort), "--ws.api", "eth,net,web3,txpool,debug", "--ws.origins", "*",
		"--authrpc.addr", "127.0.0.1", "--authrpc.port", strconv.Itoa(authPort),
		"--rpc.gascap", "0", "--rpc.txfeecap", "0", "--verbosity", "3",
	}, vhosts...)
}

// Face is what a deployer sees of a running geth: JSON-RPC and the CometBFT face.
type Face struct {
	RPC     string
	chainID *big.Int
	client  *ethnode.Client
	comet   *cometrpc.Server
}

// Attach waits until geth answers at rpc (alive reports an early exit with the node's
// last words), then serves the CometBFT face beside it.
func Attach(ctx context.Context, rpc string, alive func() error) (*Face, error) {
	f := &Face{RPC: rpc}
	var last error
	for {
		if err := alive(); err != nil {
			return nil, err
		}
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		last = f.dial(attempt)
		cancel()
		if last == nil {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("geth at %s not ready: %w (last try: %v)", rpc, ctx.Err(), last)
		case <-time.After(50 * time.Millisecond):
		}
	}
	version := "geth"
	var clientVersion string
	if err := f.client.RPC().CallContext(ctx, &clientVersion, "web3_clientVersion"); err == nil {
		version = clientVersion
	}
	var err error
	f.comet, err = cometrpc.Start(cometrpc.Info{App: "geth-dev", Version: version, Network: "evm-" + f.chainID.String(), Head: f.head})
	if err != nil {
		f.client.Close()
		return nil, err
	}
	return f, nil
}

func (f *Face) dial(ctx context.Context) error {
	c, err := ethnode.Dial(ctx, f.RPC)
	if err != nil {
		return err
	}
	id, err := c.ChainID(ctx)
	if err != nil {
		c.Close()
		return err
	}
	f.client, f.chainID = c, id
	return nil
}

func (f *Face) head(ctx context.Context) (uint64, []byte, error) {
	h, err := f.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, nil, err
	}
	return h.Number.Uint64(), h.Root.Bytes(), nil
}

// Head is the latest block height: a liveness probe.
func (f *Face) Head(ctx context.Context) (uint64, error) {
	n, _, err := f.head(ctx)
	return n, err
}

// WaitReady polls the node until it answers again (after a restart), for at most a minute.
func (f *Face) WaitReady(ctx context.Context) error {
	ready, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		if _, err := f.Head(ready); err == nil {
			return nil
		}
		select {
		case <-ready.Done():
			return fmt.Errorf("geth at %s not ready: %w", f.RPC, ready.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// VM is EVM.
func (f *Face) VM() vip.VM { return vip.EVM }

// ChainID is geth --dev's chain id (1337).
func (f *Face) ChainID() string { return f.chainID.String() }

// Endpoints are the JSON-RPC (HTTP, and WebSocket on the same port) and CometBFT face URLs.
func (f *Face) Endpoints() localnet.Endpoints {
	ws := ""
	if rest, ok := strings.CutPrefix(f.RPC, "http://"); ok {
		ws = "ws://" + rest
	}
	return localnet.Endpoints{JSONRPC: f.RPC, JSONRPCWS: ws, CometRPC: f.comet.URL()}
}

// Funded is the developer account.
func (f *Face) Funded() []localnet.Account { return []localnet.Account{DevAccount()} }

// Close stops the CometBFT face and the client.
func (f *Face) Close() error {
	f.client.Close()
	return f.comet.Close()
}

// Prepare makes a ready-to-start home in dir (Init) and picks the JSON-RPC and engine-API
// loopback ports; the engines then only differ in how they run geth.
func Prepare(ctx context.Context, bin, dir string) (httpPort, authPort int, err error) {
	if err := Init(ctx, bin, dir); err != nil {
		return 0, 0, err
	}
	ports, err := localnet.FreePorts(2)
	if err != nil {
		return 0, 0, err
	}
	return ports[0], ports[1], nil
}
