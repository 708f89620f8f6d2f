package gethsource_test

import (
	"context"
	"encoding/json"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/localnet/embedded"
	"github.com/vipharness/vipharness/localnet/indexer/gethsource"
)

// logEmitter's creation code deploys a contract whose every call emits one log whose topics
// are a constant and the caller (left-padded, as an indexed address), with the call's first
// 32 bytes as data.
var logEmitter = common.FromHex("0x600f80600b6000396000f3" + "6000356000523360aa60206000a200")

// Every block's receipts read in process are what eth_getBlockReceipts answers, field for
// field (contract creation, logs, plain transfer, several txs a block), and so are the
// headers and the head.
func TestReadsWhatJSONRPCServes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := embedded.StartGeth(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(ctx)
	c := r.Client()
	key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	chainID, _ := new(big.Int).SetString(r.ChainID(), 10)
	signer := types.LatestSignerForChainID(chainID)
	nonce := uint64(0)
	send := func(to *common.Address, data []byte, value int64) *types.Transaction {
		t.Helper()
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(0),
			GasFeeCap: big.NewInt(embedded.EVMMinGasPrice * 2), Gas: 200_000, To: to, Data: data, Value: big.NewInt(value)})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		nonce++
		return tx
	}
	mined := func(tx *types.Transaction) *types.Receipt {
		t.Helper()
		for {
			if rc, err := c.TransactionReceipt(ctx, tx.Hash()); err == nil {
				return rc
			}
			select {
			case <-ctx.Done():
				t.Fatalf("tx %s not mined", tx.Hash())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	emitter := mined(send(nil, logEmitter, 0)).ContractAddress
	sink := common.HexToAddress("0xbb")
	var last *types.Transaction
	for i := range 6 { // pipelined: some blocks get more than one
		if i%3 == 2 {
			last = send(&sink, nil, 1)
		} else {
			last = send(&emitter, common.LeftPadBytes([]byte{byte(i + 1)}, 32), 0)
		}
	}
	mined(last)

	src := gethsource.New(r.SealedChain())
	head, err := src.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := c.BlockNumber(ctx); head != want {
		t.Fatalf("head %d, eth_blockNumber %d", head, want)
	}
	hdrs, err := src.Headers(ctx, 0, head+5)
	if err != nil || uint64(len(hdrs)) != head+1 {
		t.Fatalf("headers 0..%d: %d, %v", head+5, len(hdrs), err)
	}
	logs := 0
	for _, h := range hdrs {
		if h.Number == 0 {
			continue // the node answers block 1 for block 0, as a minievm has none
		}
		b, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(h.Number))
		if err != nil {
			t.Fatal(err)
		}
		if b.Hash() != h.Hash || b.ParentHash != h.ParentHash {
			t.Fatalf("header %d: %+v, node has %s parent %s", h.Number, h, b.Hash(), b.ParentHash)
		}
		got, err := src.Receipts(ctx, []common.Hash{h.Hash})
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		if err := c.Client().CallContext(ctx, &raw, "eth_getBlockReceipts", h.Hash.Hex()); err != nil {
			t.Fatal(err)
		}
		var want []api.EVMTx
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = nil
		}
		if len(got[0]) == 0 {
			got[0] = nil
		}
		if !reflect.DeepEqual(got[0], want) {
			t.Fatalf("block %d:\n got %+v\nwant %+v", h.Number, got[0], want)
		}
		for _, r := range want {
			logs += len(r.Logs)
		}
	}
	if logs != 4 {
		t.Fatalf("%d logs compared, want 4", logs)
	}
	if _, err := src.Receipts(ctx, []common.Hash{{1}}); err == nil {
		t.Fatal("receipts of an unknown block: no error")
	}
}
