package evm

import (
	"context"
	"errors"
	"math/big"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/vipharness/vipharness/bindings/ethnode"
)

// fakePool is a node's view of one sender: its mined nonce (which moves by minedStep on
// every read), its pending nonce and the txs its pool shows.
type fakePool struct {
	mined      atomic.Uint64
	minedReads atomic.Int64 // how often the mined nonce was read
	minedStep  uint64
	pending    uint64
	content    map[string]map[string]map[string]any // txpool_contentFrom's answer; nil: no txpool namespace
}

type fakeEth struct{ p *fakePool }

func (f fakeEth) GetTransactionCount(_ common.Address, block string) hexutil.Uint64 {
	if block == "pending" {
		return hexutil.Uint64(f.p.pending)
	}
	f.p.minedReads.Add(1)
	return hexutil.Uint64(f.p.mined.Add(f.p.minedStep) - f.p.minedStep)
}

func (f fakeEth) GasPrice() *hexutil.Big { return (*hexutil.Big)(big.NewInt(14)) }

type fakeTxpool struct{ p *fakePool }

func (f fakeTxpool) ContentFrom(common.Address) (map[string]map[string]map[string]any, error) {
	if f.p.content == nil {
		return nil, errors.New("the method txpool_contentFrom does not exist/is not available")
	}
	return f.p.content, nil
}

func contractOn(t *testing.T, p *fakePool) *Contract {
	t.Helper()
	return contractServedBy(t, map[string]any{"eth": fakeEth{p}, "txpool": fakeTxpool{p}})
}

// contractServedBy is a Contract whose node is a JSON-RPC server of the given namespaces.
func contractServedBy(t *testing.T, namespaces map[string]any) *Contract {
	t.Helper()
	srv := rpc.NewServer()
	for name, svc := range namespaces {
		if err := srv.RegisterName(name, svc); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, err := ethnode.Dial(context.Background(), hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &Contract{client: c}
}

func TestStuckNonceIsNamedBeforeAnythingWaits(t *testing.T) {
	old := StuckNonceGrace
	StuckNonceGrace = 400 * time.Millisecond
	t.Cleanup(func() { StuckNonceGrace = old })
	from := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	t.Run("nothing pending", func(t *testing.T) {
		p := &fakePool{pending: 5}
		p.mined.Store(5)
		if err := contractOn(t, p).checkStuckNonce(ctx, from); err != nil {
			t.Fatal(err)
		}
		// Nothing pending is answered from the first read: no poll, so no wait.
		if n := p.minedReads.Load(); n != 1 {
			t.Fatalf("the mined nonce was read %d times with nothing pending, want once", n)
		}
	})

	t.Run("a pool that drains", func(t *testing.T) {
		p := &fakePool{pending: 9, minedStep: 1}
		p.mined.Store(5)
		if err := contractOn(t, p).checkStuckNonce(ctx, from); err != nil {
			t.Fatalf("a mined nonce that moves is not stuck: %v", err)
		}
	})

	t.Run("stuck, the pool shows the tx", func(t *testing.T) {
		p := &fakePool{pending: 7, content: map[string]map[string]map[string]any{"pending": {
			"5": {"hash": "0x" + strings.Repeat("ab", 32), "maxFeePerGas": "0x64", "maxPriorityFeePerGas": "0x1"},
			"6": {"hash": "0x" + strings.Repeat("cd", 32), "maxFeePerGas": "0x64", "maxPriorityFeePerGas": "0x1"},
		}}}
		p.mined.Store(5)
		err := contractOn(t, p).checkStuckNonce(ctx, from)
		var stuck *StuckNonceError
		if !errors.As(err, &stuck) || stuck.Nonce != 5 || stuck.Pending != 7 {
			t.Fatalf("err = %v, want a StuckNonceError at nonce 5 of 7", err)
		}
		// Replacement: fee cap 100 + 10% + 1 (above twice the gas price, 28), tip 1 + 10% + 1.
		if feeCap, tip := stuck.ReplacementFees(); feeCap.Int64() != 111 || tip.Int64() != 2 {
			t.Errorf("replacement fees %s, %s; want 111, 2", feeCap, tip)
		}
		for _, want := range []string{from.Hex(), "nonces 5 to 6", "the tx at nonce 5 blocks", "0x" + strings.Repeat("ab", 32),
			"max fee per gas 100 wei, tip 1 wei", "at nonce 5 paying a max fee per gas of at least 111 wei and a tip of at least 2 wei"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
	})

	t.Run("stuck, no txpool namespace", func(t *testing.T) {
		p := &fakePool{pending: 6}
		p.mined.Store(5)
		err := contractOn(t, p).checkStuckNonce(ctx, from)
		var stuck *StuckNonceError
		if !errors.As(err, &stuck) || stuck.Hash != "" {
			t.Fatalf("err = %v, want a StuckNonceError without the tx", err)
		}
		if feeCap, tip := stuck.ReplacementFees(); feeCap.Int64() != 28 || tip.Int64() != 1 {
			t.Errorf("replacement fees %s, %s; want 28 (twice the gas price of 14), 1", feeCap, tip)
		}
	})
}
