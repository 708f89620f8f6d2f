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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
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

// Rollup is a real minitiad run as a single-node rollup: a child process, or a container
// of an image.
type Rollup struct {
	vm       vip.VM
	chainID  string
	rn       runner
	ends     localnet.Endpoints
	accounts []localnet.Account
	version  string
	// starter is the account of a key of the node's own keyring (named starter) that
	// signs the bank send taking minievm past height 1, so that no funded account's nonce
	// moves before its user sends (Hardhat Ignition refuses to deploy from an account with
	// a tx of under 5 confirmations); "" on a VM without an EVM face.
	starter string
}

var _ localnet.Rollup = (*Rollup)(nil)

// Start sets up a fresh home for bin (vm's minitiad on this machine) and runs it as a child
// process until it serves (see start).
func Start(ctx context.Context, bin string, vm vip.VM, br Bridge, logger *slog.Logger) (*Rollup, error) {
	name := Dist(vm)
	if name == "" {
		return nil, fmt.Errorf("minitia engine: no rollup distribution for VM %q", vm)
	}
	for attempt := 1; ; attempt++ {
		rn, err := newBinaryRunner(bin, name, logger)
		if err != nil {
			return nil, err
		}
		r, err := start(ctx, rn, vm, br, logger)
		if errors.Is(err, errPortTaken) && attempt < 3 {
			// The ports were free when found and released for minitiad to bind: another
			// process can take one in between (parallel suites start many nodes).
			logger.Warn("minitiad found a port taken; starting again on fresh ports", "vm", vm, "attempt", attempt, "err", err)
			continue
		}
		return r, err
	}
}

// errPortTaken is a node that could not listen on a port found free for it: another
// process took the port in between.
var errPortTaken = errors.New("a port found free for it was taken before it listened")

// failed reports a node that will not become ready although its process runs: one that
// could not listen on a port, or whose node stopped (its databases closed, every RPC call
// answered with a panic), named by the log's first errors.
func (r *Rollup) failed() error {
	logs := r.rn.logs()
	switch {
	case strings.Contains(logs, "address already in use"):
		return fmt.Errorf("minitiad (%s): %w; its first errors:\n%s", r.vm, errPortTaken, firstErrors(logs, 5))
	case strings.Contains(logs, "leveldb: closed"):
		return fmt.Errorf("minitiad (%s) stopped serving (its databases are closed); its first errors:\n%s", r.vm, firstErrors(logs, 5))
	}
	return nil
}

// firstErrors is the first n error lines of a node's log, leaving out the RPC server's
// panics that follow a stopped node.
func firstErrors(logs string, n int) string {
	var out []string
	for _, line := range strings.Split(logs, "\n") {
		if len(out) == n {
			break
		}
		if (strings.Contains(line, "ERR") || strings.Contains(line, "rror")) && !strings.Contains(line, "panic in RPC HTTP handler") {
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		return process.LastLines(logs, 20)
	}
	return strings.Join(out, "\n")
}

// StartImage sets up a fresh home on a Docker volume and runs img's minitiad in containers
// until it serves (see start): every minitiad command of the setup runs in a container of
// the image, the node in one more, its ports published on the Docker host.
func StartImage(ctx context.Context, img Image, vm vip.VM, br Bridge, logger *slog.Logger) (*Rollup, error) {
	if Dist(vm) == "" {
		return nil, fmt.Errorf("minitia engine: no rollup distribution for VM %q", vm)
	}
	rn, err := newImageRunner(ctx, img, vm)
	if err != nil {
		return nil, err
	}
	return start(ctx, rn, vm, br, logger)
}

// start sets the rollup up on rn, as a rollup team's node is (init, keys add --recover,
// genesis add-genesis-account, add-genesis-validator), starts it, and waits until it
// serves: blocks, REST, and on minievm a JSON-RPC past height 1 (minievm answers "jsonrpc
// is not ready" until then; blocks come with txs, so one bank send starts it). On failure
// rn is stopped (its home removed).
func start(ctx context.Context, rn runner, vm vip.VM, br Bridge, logger *slog.Logger) (_ *Rollup, err error) {
	defer func() {
		if err != nil {
			_ = rn.stop(context.WithoutCancel(ctx))
		}
	}()
	r := &Rollup{vm: vm, chainID: Dist(vm) + "-1", rn: rn}
	mnemonics, funded, err := r.newAccounts()
	if err != nil {
		return nil, err
	}
	var starter *genesisKey
	if evmFaced(vm) {
		m, err := minitia.NewMnemonic()
		if err != nil {
			return nil, err
		}
		acc, err := minitia.DeriveAccount(m, vip.EthSecp256k1, Prefix)
		if err != nil {
			return nil, err
		}
		starter, r.starter = &genesisKey{name: "starter", mnemonic: m, address: acc.Address}, acc.Address
	}
	l := rn.listeners()
	if err := prepare(ctx, rn, r.chainID, vm, mnemonics[0], funded, starter, br, l); err != nil {
		return nil, err
	}
	if err := rn.serve(ctx, "start", "--home", rn.home()); err != nil {
		return nil, err
	}
	r.ends = localnet.Endpoints{CometRPC: rn.url(l.rpc), REST: rn.url(l.api)}
	if evmFaced(vm) {
		r.ends.JSONRPC = rn.url(l.jsonrpc)
		r.ends.JSONRPCWS = strings.Replace(rn.url(l.jsonrpcWS), "http://", "ws://", 1)
	}
	if err := r.waitReady(ctx); err != nil {
		return nil, err
	}
	logger.Info("minitiad ready", "vm", vm, "chain_id", r.chainID, "version", r.version, "rpc", r.ends.CometRPC, "node", rn.where())
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
	var refused refusals
	for {
		if exited, werr := r.rn.exited(ready); exited {
			if err := r.failed(); err != nil {
				return err
			}
			return fmt.Errorf("minitiad (%s) exited before it was ready (%v); last log lines:\n%s", r.vm, werr, process.LastLines(r.rn.logs(), 20))
		}
		if err := r.failed(); err != nil {
			return err
		}
		height, err := r.height(ready)
		switch {
		case err != nil:
			last = err
		case height < 1:
			last = errors.New("no block yet")
		case height < 2 && !sent && evmFaced(r.vm):
			// minievm's JSON-RPC serves from height 2, and a block comes with a tx.
			if last = r.selfSend(ready); last == nil {
				sent = true
			}
		default:
			if evmFaced(r.vm) {
				if last = r.jsonrpcReady(ready); last != nil {
					break
				}
			}
			if last = r.restReady(ready); last == nil {
				return nil
			}
			if refused.see(last, time.Now()) {
				return fmt.Errorf("minitiad (%s): %w: its REST (%s) refused connections for %s while it made blocks; last log lines:\n%s", r.vm, errPortTaken, r.ends.REST, refusedFor, process.LastLines(r.rn.logs(), 20))
			}
		}
		select {
		case <-ready.Done():
			return fmt.Errorf("minitiad (%s) not ready: %w (last check: %v); last log lines:\n%s", r.vm, ready.Err(), last, process.LastLines(r.rn.logs(), 20))
		case <-time.After(150 * time.Millisecond):
		}
	}
}

// A Cosmos SDK node whose REST server cannot listen logs nothing and goes on making blocks
// (its start holds the error until a signal ends it), so a port taken before it bound shows
// only as a REST that refuses connections while blocks come. After refusedFor of that, the
// node is taken for one that lost its port. (It listens before its first block otherwise.)
const refusedFor = 30 * time.Second

// refusals tracks how long a node with blocks has refused REST connections in a row.
type refusals struct{ since time.Time }

// see records a REST check's outcome at now and reports whether the node has refused
// connections for refusedFor.
func (r *refusals) see(err error, now time.Time) bool {
	if !errors.Is(err, syscall.ECONNREFUSED) {
		r.since = time.Time{}
		return false
	}
	if r.since.IsZero() {
		r.since = now
	}
	return now.Sub(r.since) >= refusedFor
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

// selfSend sends 1 umin from the starter account to itself with the node's own CLI: the
// block that carries it takes minievm past height 1, and no funded account's nonce moves.
func (r *Rollup) selfSend(ctx context.Context) error {
	const gas = 400_000
	price, err := strconv.ParseFloat(GasPrice(r.vm), 64)
	if err != nil {
		return err
	}
	fees := strconv.FormatInt(int64(float64(gas)*price)+1, 10) + Denom
	// The node's RPC as the node's own machine (or container) reaches it.
	node := fmt.Sprintf("tcp://127.0.0.1:%d", r.rn.listeners().rpc)
	out, err := minitiad(ctx, r.rn, "", "tx", "bank", "send", "starter", r.starter, "1"+Denom,
		"--keyring-backend", "test", "--chain-id", r.chainID, "--node", node,
		"--gas", strconv.Itoa(gas), "--fees", fees, "--yes", "--output", "json")
	if err != nil {
		return err
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
func (r *Rollup) KeyType() vip.KeyType { return vip.MustDescribe(r.vm).KeyType }

// Version is node_info's application name and version ("minievm v1.2.18").
func (r *Rollup) Version() string { return r.version }

// Home is the node's home as minitiad sees it: its config, its data and its log (removed
// by Stop); a folder on this machine for a binary, in the node's volume for an image.
func (r *Rollup) Home() string { return r.rn.home() }

// Containers are the IDs of every container an image's rollup made (setup commands and
// the node; Stop removes them all); nil for a binary's.
func (r *Rollup) Containers() []string {
	if ir, ok := r.rn.(*imageRunner); ok {
		return ir.containers()
	}
	return nil
}

// Volume is the Docker volume that holds an image's rollup's home ("" for a binary's).
func (r *Rollup) Volume() string {
	if ir, ok := r.rn.(*imageRunner); ok {
		return ir.h.Volume()
	}
	return ""
}

// Logs is the tail of minitiad's log, for failed specs.
func (r *Rollup) Logs() string { return r.rn.logs() }

// Stop stops minitiad (by PID, or its container by ID) and removes its home (the folder,
// or the volume).
func (r *Rollup) Stop(ctx context.Context) error { return r.rn.stop(ctx) }
