package minitiad

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/scorers"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/process"
)

// Prefix is the bech32 account prefix of every minitia.
const Prefix = "init"

// fundedMnemonics is how many fresh mnemonics a rollup funds: an operator and a stranger,
// each with a Cosmos account from genesis (minievm estimates gas only from an address that
// has one).
const fundedMnemonics = 2

// Rollup is a real minitiad run as a single-node rollup, as a child process.
type Rollup struct {
	vm       vip.VM
	chainID  string
	bin      string
	home     string
	node     *process.Node
	ends     localnet.Endpoints
	accounts []localnet.Account
	version  string
}

var _ localnet.Rollup = (*Rollup)(nil)

// Start sets up a fresh home for bin (vm's minitiad) and runs it until it serves: blocks,
// REST, and on minievm a JSON-RPC past height 1 (minievm answers "jsonrpc is not ready" until
// then; blocks come with txs, so one bank send starts it).
func Start(ctx context.Context, bin string, vm vip.VM, logger *slog.Logger) (_ *Rollup, err error) {
	name := Dist(vm)
	if name == "" {
		return nil, fmt.Errorf("minitia engine: no rollup distribution for VM %q", vm)
	}
	home, err := os.MkdirTemp("", "vipharness-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("minitiad home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	free, err := localnet.FreePorts(9)
	if err != nil {
		return nil, err
	}
	p := ports{rpc: free[0], p2p: free[1], proxy: free[2], pprof: free[3], prometheus: free[4], api: free[5], grpc: free[6], jsonrpc: free[7], jsonrpcWS: free[8]}
	r := &Rollup{vm: vm, chainID: name + "-1", bin: bin, home: home}
	mnemonics, funded, err := r.newAccounts()
	if err != nil {
		return nil, err
	}
	if err := prepare(ctx, bin, home, r.chainID, vm, mnemonics[0], funded, p); err != nil {
		return nil, err
	}
	r.ends = localnet.Endpoints{
		CometRPC: fmt.Sprintf("http://127.0.0.1:%d", p.rpc),
		REST:     fmt.Sprintf("http://127.0.0.1:%d", p.api),
	}
	if evmFaced(vm) {
		r.ends.JSONRPC = fmt.Sprintf("http://127.0.0.1:%d", p.jsonrpc)
		r.ends.JSONRPCWS = fmt.Sprintf("ws://127.0.0.1:%d", p.jsonrpcWS)
	}
	if r.node, err = process.Launch("minitiad", bin, home, []string{libraryPath(bin)}, logger, "start", "--home", home); err != nil {
		return nil, err
	}
	if err := r.waitReady(ctx); err != nil {
		_ = r.node.Stop(15 * time.Second)
		return nil, err
	}
	logger.Info("minitiad ready", "vm", vm, "chain_id", r.chainID, "version", r.version, "rpc", r.ends.CometRPC, "pid", r.node.PID())
	return r, nil
}

// newAccounts makes the rollup's fresh mnemonics and the accounts they fund: for each, the
// key kind the VM's tools use first and the other coin type beside it (both funded, as the
// project's own rollups fund them).
func (r *Rollup) newAccounts() (mnemonics, funded []string, err error) {
	for range fundedMnemonics {
		m, err := minitia.NewMnemonic()
		if err != nil {
			return nil, nil, err
		}
		eth, err := minitia.DeriveAccount(m, vip.EthSecp256k1, Prefix)
		if err != nil {
			return nil, nil, err
		}
		classic, err := minitia.DeriveAccount(m, vip.Secp256k1, Prefix)
		if err != nil {
			return nil, nil, err
		}
		// The account the VM's tools derive first (its descriptor's key kind), the other
		// coin type beside it; an EVM account is written 0x.
		acc := localnet.Account{Mnemonic: m}
		switch {
		case evmFaced(r.vm):
			key, err := crypto.HexToECDSA(eth.PrivateKey)
			if err != nil {
				return nil, nil, fmt.Errorf("funded key: %w", err)
			}
			acc.Address, acc.PrivateKey = crypto.PubkeyToAddress(key.PublicKey).Hex(), eth.PrivateKey
			acc.CoinType60Address, acc.CoinType118Address = eth.Address, classic.Address
		case r.KeyType() == vip.Secp256k1: // CosmWasm tools sign with coin type 118 first
			acc.Address, acc.PrivateKey, acc.CoinType60Address = classic.Address, classic.PrivateKey, eth.Address
		default: // minitiad's own default: coin type 60, eth_secp256k1
			acc.Address, acc.PrivateKey, acc.CoinType118Address = eth.Address, eth.PrivateKey, classic.Address
		}
		r.accounts = append(r.accounts, acc)
		mnemonics = append(mnemonics, m)
		funded = append(funded, eth.Address, classic.Address)
	}
	return mnemonics, funded, nil
}

// waitReady waits for a block, REST and (minievm) a JSON-RPC that answers gas prices.
func (r *Rollup) waitReady(ctx context.Context) error {
	ready, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	sent := false
	var last error
	for {
		if exited, werr := r.node.Exited(); exited {
			return fmt.Errorf("minitiad (%s) exited before it was ready (%v); last log lines:\n%s", r.vm, werr, process.LastLines(r.node.Logs(), 20))
		}
		height, err := r.height(ready)
		switch {
		case err != nil:
			last = err
		case height < 1:
			last = errors.New("no block yet")
		case !evmFaced(r.vm):
			if last = r.restReady(ready); last == nil {
				return nil
			}
		case height < 2 && !sent:
			// minievm's JSON-RPC serves from height 2, and a block comes with a tx.
			if last = r.selfSend(ready); last == nil {
				sent = true
			}
		default:
			if last = r.jsonrpcReady(ready); last == nil {
				return r.restReady(ready)
			}
		}
		select {
		case <-ready.Done():
			return fmt.Errorf("minitiad (%s) not ready: %w (last check: %v); last log lines:\n%s", r.vm, ready.Err(), last, process.LastLines(r.node.Logs(), 20))
		case <-time.After(150 * time.Millisecond):
		}
	}
}

func (r *Rollup) height(ctx context.Context) (int64, error) {
	var st struct {
		Result struct {
			SyncInfo struct {
				Height string `json:"latest_block_height"`
			} `json:"sync_info"`
		} `json:"result"`
	}
	if err := getJSON(ctx, r.ends.CometRPC+"/status", &st); err != nil {
		return 0, err
	}
	return strconv.ParseInt(st.Result.SyncInfo.Height, 10, 64)
}

func (r *Rollup) restReady(ctx context.Context) error {
	var info struct {
		AppVersion struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"application_version"`
	}
	if err := getJSON(ctx, r.ends.REST+"/cosmos/base/tendermint/v1beta1/node_info", &info); err != nil {
		return err
	}
	r.version = info.AppVersion.Name + " " + info.AppVersion.Version
	return nil
}

func (r *Rollup) jsonrpcReady(ctx context.Context) error {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_gasPrice","params":[]}`)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.ends.JSONRPC, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var reply struct {
		Result string `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&reply); err != nil {
		return fmt.Errorf("eth_gasPrice: %w", err)
	}
	if reply.Error != nil {
		return fmt.Errorf("eth_gasPrice: %s", reply.Error.Message)
	}
	return nil
}

// selfSend sends 1 umin from the first funded account to itself with the node's own CLI:
// the block that carries it takes minievm past height 1.
func (r *Rollup) selfSend(ctx context.Context) error {
	const gas = 400_000
	price, err := strconv.ParseFloat(GasPrice(r.vm), 64)
	if err != nil {
		return err
	}
	fees := strconv.FormatInt(int64(float64(gas)*price)+1, 10) + Denom
	self := r.accounts[0].CoinType60Address
	cmd := exec.CommandContext(ctx, r.bin, "tx", "bank", "send", "val", self, "1"+Denom,
		"--home", r.home, "--keyring-backend", "test", "--chain-id", r.chainID,
		"--node", strings.Replace(r.ends.CometRPC, "http://", "tcp://", 1),
		"--gas", strconv.Itoa(gas), "--fees", fees, "--yes", "--output", "json")
	cmd.Env = append(os.Environ(), libraryPath(r.bin))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("minitiad tx bank send: %w: %s", err, lastLine(out))
	}
	var res struct {
		Code   int    `json:"code"`
		RawLog string `json:"raw_log"`
	}
	if err := json.Unmarshal(out, &res); err == nil && res.Code != 0 {
		return fmt.Errorf("minitiad tx bank send: code %d: %s", res.Code, res.RawLog)
	}
	return nil
}

func getJSON(ctx context.Context, url string, v any) error {
	b, err := process.Get(ctx, url)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// VM is the rollup's VM.
func (r *Rollup) VM() vip.VM { return r.vm }

// ChainID is "<dist>-1" (minievm-1, ...).
func (r *Rollup) ChainID() string { return r.chainID }

// Endpoints are CometBFT RPC and REST, and on minievm JSON-RPC and its WebSocket port.
func (r *Rollup) Endpoints() localnet.Endpoints { return r.ends }

// Funded are the accounts funded at genesis (fresh mnemonics, both coin types).
func (r *Rollup) Funded() []localnet.Account { return r.accounts }

// KeyType is the key kind of Funded()[i].Address.
func (r *Rollup) KeyType() vip.KeyType { return scorers.MustDescribe(r.vm).KeyType }

// Version is node_info's application name and version ("minievm v1.2.18").
func (r *Rollup) Version() string { return r.version }

// Home is the node's home: its config, its data and its log (removed by Stop).
func (r *Rollup) Home() string { return r.home }

// Logs is the tail of minitiad's log, for failed specs.
func (r *Rollup) Logs() string { return r.node.Logs() }

// Stop stops minitiad by PID and removes its home.
func (r *Rollup) Stop(context.Context) error {
	return errors.Join(r.node.Stop(15*time.Second), os.RemoveAll(r.home))
}
