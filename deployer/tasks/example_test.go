package tasks_test

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/bindings/ethnode"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/tasks"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/l1"
)

// A policy that scores the gas token users send: a point per 0.001 sent.
const sendsPolicy = `policy: 1
name: sends
vm: evm
actions:
  - title: Send gas tokens
    description: Every 0.001 of the gas token you send earns a point.
sources:
  - name: sends
    native_transfer: {}
rules:
  - name: sends
    source: sends
    user: args.from
    amount: args.value / 1e15
    aggregate: sum
`

// Compute a stage's scores from the rollup's own activity by a published policy: the stage's
// times come from the L1, its blocks and transactions from the rollup's JSON-RPC, and the
// score file and manifest are the same bytes on every machine that reads the same chain.
func ExampleComputeStage() {
	ctx := context.Background()
	rollup, err := embedded.StartEVM(ctx) // a local EVM rollup; yours is a URL
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rollup.Stop(ctx)
	hub, err := l1.Start(ctx, l1.WithStageInterval(6*time.Second)) // a local L1; yours is a URL
	if err != nil {
		fmt.Println(err)
		return
	}
	defer hub.Close()

	// In stage 1, a user sends 2.5 gas tokens; once stage 1 has ended, two more txs give the
	// rollup a block past its end (a source behind the stage's end is refused). Two, because
	// a CometBFT block carries its parent's commit time: after an idle spell the first
	// block's time is the last one's, from before the end.
	eth, err := ethnode.Dial(ctx, rollup.Endpoints().JSONRPC)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eth.Close()
	user, _ := crypto.HexToECDSA(rollup.Funded()[0].PrivateKey)
	if err := send(ctx, eth, user, big.NewInt(2_500_000_000_000_000_000)); err != nil {
		fmt.Println(err)
		return
	}
	times, err := l1node.NewReader(hub.URL(), hub.VIPAddress(), nil).StageTimes(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(time.Until(time.Unix(int64(times.End)+1, 0)))
	if _, err := hub.Advance(ctx); err != nil { // the L1's agent moves it to stage 2
		fmt.Println(err)
		return
	}
	for range 2 {
		if err := send(ctx, eth, user, big.NewInt(1)); err != nil {
			fmt.Println(err)
			return
		}
	}

	p, err := policy.Parse([]byte(sendsPolicy), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := tasks.ComputeStage(ctx, tasks.ComputeOptions{
		Policy: p, Stage: 1, BridgeID: 1,
		JSONRPC: rollup.Endpoints().JSONRPC,
		L1REST:  hub.URL(), VIPModule: hub.VIPAddress(),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("addresses:", len(st.Result.Scores), "total:", st.Total(), "from the", st.Run.SourceKind)
	// Output:
	// addresses: 1 total: 2500 from the node
}

// send sends value wei from key to a fresh address and waits for its receipt.
func send(ctx context.Context, eth *ethnode.Client, key *ecdsa.PrivateKey, value *big.Int) error {
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := eth.PendingNonceAt(ctx, from)
	if err != nil {
		return err
	}
	chainID, err := eth.ChainID(ctx)
	if err != nil {
		return err
	}
	price, err := eth.SuggestGasPrice(ctx)
	if err != nil {
		return err
	}
	to := common.Address{0xbe, 0xef}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.LegacyTx{Nonce: nonce, To: &to, Value: value, Gas: 1_000_000, GasPrice: price})
	if err != nil {
		return err
	}
	if err := eth.SendTransaction(ctx, tx); err != nil {
		return err
	}
	for {
		if _, err := eth.Receipt(ctx, tx.Hash()); !ethnode.ReceiptPending(err) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
