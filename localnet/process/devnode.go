package process

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/minitia"
	"github.com/vipharness/vipharness/localnet/movevm"
)

// DevNodeBinary is the project's own dev node (cmd/devnode), as `make nodes` builds it.
const DevNodeBinary = "devnode"

// DevNodeRollup is the project's dev node run as a child process.
type DevNodeRollup struct {
	node     *node
	ready    minitia.Ready
	accounts []localnet.Account
}

var _ localnet.Rollup = (*DevNodeRollup)(nil)

// NewDevNodeHome makes a home for a dev node binary with fresh mnemonics in a 0600 file, so
// the caller knows the funded keys and the node's output never carries them. It returns the
// mnemonics file and the mnemonics.
func NewDevNodeHome(home string, accounts int) (string, []string, error) {
	var list []string
	for range accounts {
		m, err := minitia.NewMnemonic()
		if err != nil {
			return "", nil, err
		}
		list = append(list, m)
	}
	path := filepath.Join(home, "mnemonics")
	if err := os.WriteFile(path, []byte(strings.Join(list, "\n")+"\n"), 0o600); err != nil {
		return "", nil, fmt.Errorf("dev node mnemonics: %w", err)
	}
	return path, list, nil
}

// DevNodeAccounts derives the funded accounts from their mnemonics and checks them against
// what the node reports.
func DevNodeAccounts(ready minitia.Ready, mnemonics []string) ([]localnet.Account, error) {
	if len(ready.Funded) != len(mnemonics) {
		return nil, fmt.Errorf("dev node funds %d accounts, want %d", len(ready.Funded), len(mnemonics))
	}
	var out []localnet.Account
	for i, m := range mnemonics {
		kind := ready.KeyType
		if kind == "" {
			kind = vip.Secp256k1
		}
		a, err := minitia.DeriveAccount(m, kind, ready.Prefix)
		if err != nil {
			return nil, err
		}
		if a.Address != ready.Funded[i] {
			return nil, fmt.Errorf("dev node funded %s, the mnemonic derives %s", ready.Funded[i], a.Address)
		}
		acc := localnet.Account{Address: a.Address, Mnemonic: m, PrivateKey: a.PrivateKey}
		if ready.VM == string(vip.EVM) {
			// EVM tools name an account by its 0x address.
			acc.Address = common.BytesToAddress(a.Key.PubKey().Address()).Hex()
		}
		if ready.AlsoKeyType == vip.EthSecp256k1 && i < len(ready.AlsoFunded) {
			eth, err := minitia.DeriveAccount(m, vip.EthSecp256k1, ready.Prefix)
			if err != nil {
				return nil, err
			}
			if eth.Address != ready.AlsoFunded[i] {
				return nil, fmt.Errorf("dev node funded %s (coin type 60), the mnemonic derives %s", ready.AlsoFunded[i], eth.Address)
			}
			acc.CoinType60Address = eth.Address
		}
		if ready.AlsoKeyType == vip.Secp256k1 && i < len(ready.AlsoFunded) {
			sec, err := minitia.DeriveAccount(m, vip.Secp256k1, ready.Prefix)
			if err != nil {
				return nil, err
			}
			if sec.Address != ready.AlsoFunded[i] {
				return nil, fmt.Errorf("dev node funded %s (coin type 118), the mnemonic derives %s", ready.AlsoFunded[i], sec.Address)
			}
			acc.CoinType118Address = sec.Address
		}
		out = append(out, acc)
	}
	return out, nil
}

// StartDevNode runs the dev node binary for vm until it prints its ready line.
// A blockTime of 0 keeps the binary's default.
func StartDevNode(ctx context.Context, bin string, vm vip.VM, blockTime time.Duration, logger *slog.Logger) (_ *DevNodeRollup, err error) {
	home, err := os.MkdirTemp("", "vipharness-devnode-")
	if err != nil {
		return nil, fmt.Errorf("dev node home: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(home)
		}
	}()
	file, mnemonics, err := NewDevNodeHome(home, minitia.DefaultFundedCount)
	if err != nil {
		return nil, err
	}
	args := []string{"--vm", string(vm), "--mnemonics-file", file}
	if vm == vip.Move {
		args = append(args, "--movevm-dir", movevm.Dir())
	}
	if blockTime > 0 {
		args = append(args, "--block-time", blockTime.String())
	}
	n, err := start("devnode", bin, home, logger, args...)
	if err != nil {
		return nil, err
	}
	r := &DevNodeRollup{node: n}
	if r.ready, err = r.waitReady(ctx); err == nil {
		r.accounts, err = DevNodeAccounts(r.ready, mnemonics)
	}
	if err != nil {
		_ = n.stop(5 * time.Second)
		return nil, err
	}
	return r, nil
}

func (r *DevNodeRollup) waitReady(ctx context.Context) (minitia.Ready, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		ready, ok, err := minitia.FindReady(r.node.Logs())
		if err != nil || ok {
			return ready, err
		}
		if exited, werr := r.node.exited(); exited {
			return minitia.Ready{}, fmt.Errorf("dev node exited before it was ready (%v); last log lines:\n%s", werr, lastLines(r.node.Logs(), 20))
		}
		select {
		case <-ctx.Done():
			return minitia.Ready{}, fmt.Errorf("dev node not ready: %w; last log lines:\n%s", ctx.Err(), lastLines(r.node.Logs(), 20))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// VM is the VM the node runs.
func (r *DevNodeRollup) VM() vip.VM { return vip.VM(r.ready.VM) }

// ChainID is the chain id the node reported.
func (r *DevNodeRollup) ChainID() string { return r.ready.ChainID }

// Endpoints are the node's CometBFT RPC and REST URLs, and an EVM node's JSON-RPC.
func (r *DevNodeRollup) Endpoints() localnet.Endpoints {
	return localnet.Endpoints{CometRPC: r.ready.CometRPC, REST: r.ready.REST, JSONRPC: r.ready.JSONRPC, JSONRPCWS: r.ready.JSONRPCWS}
}

// Funded are the accounts funded at genesis, with the mnemonics this process chose.
func (r *DevNodeRollup) Funded() []localnet.Account { return r.accounts }

// Logs returns what the node printed.
func (r *DevNodeRollup) Logs() string { return r.node.Logs() }

// Dump ends the node with SIGQUIT, so that Go prints every goroutine's stack, and returns
// what it printed (the log's last 512 KiB).
func (r *DevNodeRollup) Dump() string {
	if exited, _ := r.node.exited(); !exited {
		_ = syscall.Kill(r.node.cmd.Process.Pid, syscall.SIGQUIT)
		select {
		case <-r.node.done:
		case <-time.After(5 * time.Second):
		}
	}
	return r.node.Logs()
}

// Stop stops the node by its process group and removes its home.
func (r *DevNodeRollup) Stop(context.Context) error {
	return errors.Join(r.node.stop(10*time.Second), os.RemoveAll(r.node.home))
}
