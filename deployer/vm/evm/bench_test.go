package evm_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/internal/throughput"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/push"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/evm"
	"github.com/vipharness/vipharness/localnet"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/process"
)

// BenchmarkPushThroughput pushes the same number of new addresses twice on one chain in one
// run: through the deployer (validation, gas model, journal with fsync, pipelined sends,
// receipt checks), and as raw pre-signed txs of the same chunks sent back to back (the
// chain's own ceiling). The ratio is the deployer's overhead.
// It runs on the embedded EVM minitia (each tx in a Cosmos tx under CometBFT), on the
// embedded geth chain and, after `make nodes`, on a real geth child process.
func BenchmarkPushThroughput(b *testing.B) {
	engines := []localnet.Engine{embedded.Engine{}, embedded.Engine{EVMOnGeth: true}}
	if p := (process.Engine{}); p.Available(context.Background(), vip.EVM) == nil {
		engines = append(engines, p)
	}
	for _, e := range engines {
		b.Run(e.Name(), func(b *testing.B) {
			ctx := context.Background()
			r, err := e.StartRollup(ctx, vip.EVM)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Stop(ctx)
			benchPush(b, r)
		})
	}
}

func benchPush(b *testing.B, r localnet.Rollup) {
	const n = 5000
	ctx := context.Background()
	key, _ := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: r.Endpoints().JSONRPC, Operator: keys.FromECDSA(key, "operator key"), Push: deployer.PushConfig{JournalDir: b.TempDir(), Poll: 2 * time.Millisecond}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Deploy(ctx, 1); err != nil {
		b.Fatal(err)
	}
	contract := common.HexToAddress(s.Contract())
	throughput.Push(b, n, func(seed int64) []scores.Entry { return scores.Generate(n, seed) },
		func(entries []scores.Entry) (push.Result, error) { return s.UpdateScores(ctx, 1, entries) },
		func(entries []scores.Entry, chunkSize int) error {
			return sendRaw(ctx, r, key, contract, entries, chunkSize)
		})
}

// sendRaw signs every chunk up front, sends them all, then waits for every receipt.
func sendRaw(ctx context.Context, r localnet.Rollup, key *ecdsa.PrivateKey, contract common.Address, entries []scores.Entry, size int) error {
	c, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
	if err != nil {
		return err
	}
	defer c.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return err
	}
	chainID, _ := c.ChainID(ctx)
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	tip := big.NewInt(1_000_000_000)
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	b := vipscore.NewVipScore()
	signer := types.LatestSignerForChainID(chainID)
	var txs []*types.Transaction
	for _, chunk := range scores.Split(entries, size) {
		addrs := make([]common.Address, len(chunk))
		amounts := make([]uint64, len(chunk))
		for i, e := range chunk {
			addrs[i], amounts[i] = common.HexToAddress(e.Addr), e.Amount
		}
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
			Gas: evm.MaxTxGas, To: &contract, Data: b.PackUpdateScores(1, addrs, amounts)})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
		nonce++
	}
	for _, tx := range txs {
		if err := c.SendTransaction(ctx, tx); err != nil {
			return err
		}
	}
	for _, tx := range txs {
		for {
			rc, err := c.TransactionReceipt(ctx, tx.Hash())
			if err == nil {
				if rc.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("raw tx %s failed", tx.Hash())
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return nil
}
