package process

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/cosmosnode"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/gethdev"
)

// requireNode skips without the binary, unless REQUIRE_NODES=1 (CI) makes that a failure.
func requireNode(t *testing.T, e Engine, vm vip.VM) {
	t.Helper()
	if err := e.Available(context.Background(), vm); err != nil {
		if os.Getenv("REQUIRE_NODES") == "1" || os.Getenv("CI") == "true" {
			t.Fatalf("REQUIRE_NODES=1: %v", err)
		}
		t.Skipf("%v (set REQUIRE_NODES=1 to fail instead)", err)
	}
}

func TestGethRollupServesAndStopsCleanly(t *testing.T) {
	e := Engine{}
	requireNode(t, e, vip.EVM)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := e.StartRollup(ctx, vip.EVM)
	if err != nil {
		t.Fatal(err)
	}
	g := r.(*GethRollup)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = r.Stop(context.Background())
		}
	})
	ep := r.Endpoints()
	if !strings.HasPrefix(ep.JSONRPC, "http://127.0.0.1:") || !strings.HasPrefix(ep.CometRPC, "http://127.0.0.1:") {
		t.Fatalf("endpoints not on loopback: %+v", ep)
	}
	if r.ChainID() != "1337" {
		t.Fatalf("chain id %s, want 1337", r.ChainID())
	}
	ver, err := cosmosnode.New("", ep.CometRPC, nil).ABCIInfo(ctx)
	if err != nil || !strings.Contains(strings.ToLower(ver.Version), "geth") {
		t.Fatalf("abci_info version %+v, %v", ver, err)
	}

	// A fresh storage slot must cost Osaka/Prague gas (~22.1k), not the ~111k that the
	// future forks geth --dev enables would charge.
	client, err := ethclient.DialContext(ctx, ep.JSONRPC)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	// initcode returning runtime 0x600160005500: SSTORE(0, 1).
	initcode := common.FromHex("0x65600160005500600052600660" + "1af3")
	contract := send(ctx, t, client, key, nil, initcode).ContractAddress
	rcpt := send(ctx, t, client, key, &contract, nil)
	if rcpt.GasUsed < 43_000 || rcpt.GasUsed > 45_000 {
		t.Fatalf("fresh SSTORE call used %d gas, want ~43.1k (Osaka rules)", rcpt.GasUsed)
	}

	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil || head.GasLimit < gethdev.GasLimit*9/10 {
		t.Fatalf("block gas limit %v (%v), want about %d", head, err, gethdev.GasLimit)
	}

	// A restart keeps the chain and the endpoints.
	before, err := client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oldPID := g.node.cmd.Process.Pid
	if err := g.Restart(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if g.node.cmd.Process.Pid == oldPID {
		t.Fatal("restart kept the old process")
	}
	if err := syscall.Kill(oldPID, 0); err == nil {
		t.Fatalf("old geth pid %d still alive after Restart", oldPID)
	}
	after, err := client.BlockNumber(ctx)
	if err != nil || after < before {
		t.Fatalf("after restart: block %d (%v), want >= %d", after, err, before)
	}
	send(ctx, t, client, key, &contract, nil)

	pid := g.node.cmd.Process.Pid
	home := g.node.home
	if err := r.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("geth pid %d still alive after Stop", pid)
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Fatalf("home %s left behind: %v", home, err)
	}
}

func send(ctx context.Context, t *testing.T, c *ethclient.Client, key *ecdsa.PrivateKey, to *common.Address, data []byte) *types.Receipt {
	t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tip := big.NewInt(1_000_000_000)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: big.NewInt(100_000_000_000), Gas: 200_000, To: to, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	for {
		rcpt, err := c.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if rcpt.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("tx %s failed", tx.Hash())
			}
			return rcpt
		}
		select {
		case <-ctx.Done():
			t.Fatalf("wait for receipt: %v", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
