package router

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// benchTransfers is how many transfers run at once in one benchmark iteration.
const benchTransfers = 1000

// BenchmarkTransfers measures the stand-in's throughput: each iteration runs 1,000
// concurrent transfers (route, msgs, sign, track, status polled to STATE_COMPLETED) with a
// 1ms step interval. "memchain" links the stand-in to an in-memory chain, so the figure is
// the stand-in's; "embedded-evm" links it to the embedded go-ethereum chain, so every
// transfer is also a mined transaction and three JSON-RPC reads at track.
func BenchmarkTransfers(b *testing.B) {
	b.Run("memchain", func(b *testing.B) {
		chain := newMemChain(3370758106842963)
		signers := make([]api.Signer, 8+hookSigners)
		for i := range signers {
			k, _ := newKey(b)
			signers[i] = memSignerKey(b, chain, k)
		}
		benchTransfersOn(b, WithTxSource(evmChain, chain), signers[:8], signers[8:])
	})
	b.Run("embedded-evm", func(b *testing.B) {
		var keys []*ecdsa.PrivateKey
		var addrs []common.Address
		for range 20 + hookSigners {
			k, _ := newKey(b)
			keys = append(keys, k)
			addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r, err := embedded.StartGeth(ctx, embedded.WithFundedAddresses(addrs...))
		if err != nil {
			b.Fatal(err)
		}
		defer r.Stop(context.Background())
		var signers []api.Signer
		for _, k := range keys {
			s, err := api.NewEVMSigner(ctx, r.Client(), hex.EncodeToString(crypto.FromECDSA(k)), api.WithReceiptPoll(5*time.Millisecond))
			if err != nil {
				b.Fatal(err)
			}
			signers = append(signers, s)
		}
		benchTransfersOn(b, WithChain(r.ChainID(), r.Endpoints().JSONRPC), signers[:20], signers[20:])
	})
}

// hookSigners is how many users send the OP-hook transfers of an iteration, one each: a
// user's hooks run one after another on the hook chain (each is signed with the sequence
// the one before it leaves), so concurrent hook transfers come from different users.
const hookSigners = (benchTransfers + 2) / 3

func benchTransfersOn(b *testing.B, link Option, signers, hookers []api.Signer) {
	s := startRouter(b, link, WithStepInterval(time.Millisecond), WithSeed(1))
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, MaxConnsPerHost: 128, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	c := newClient(b, s, api.WithHTTPClient(&http.Client{Transport: tr, Timeout: 30 * time.Second}),
		api.WithPollBackoff(time.Millisecond, 10*time.Millisecond))
	dst := []struct{ chain, denom string }{{l1Chain, ethOnL1}, {nobleChain, ethOnNoble}, {moveChain, ethOnMove}}
	for _, sg := range hookers {
		if es, ok := sg.(*api.EVMSigner); ok {
			hookAccounts(s)(es)
		}
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var wg sync.WaitGroup
		errs := make(chan error, benchTransfers)
		for j := range benchTransfers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := dst[j%len(dst)]
				signer := signers[j%len(signers)]
				if d.chain == moveChain {
					signer = hookers[j/len(dst)]
				}
				var from common.Address
				switch s := signer.(type) {
				case *api.EVMSigner:
					from = s.Address()
				}
				res, err := c.Transfer(ctx, api.TransferRequest{
					Route:     api.RouteRequest{AmountIn: fmt.Sprint(1000 + j), SourceAssetChainID: evmChain, SourceAssetDenom: evmNative, DestAssetChainID: d.chain, DestAssetDenom: d.denom},
					Addresses: addressesFor(from, d.chain),
				}, signer)
				if err == nil && !res.Status().Succeeded() {
					err = fmt.Errorf("ended %s", res.Status().State)
				}
				if err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		cancel()
		close(errs)
		for err := range errs {
			b.Fatalf("transfer: %v", err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	var reqs int64
	for _, n := range s.Requests() {
		reqs += n
	}
	b.ReportMetric(float64(b.N*benchTransfers)/elapsed.Seconds(), "transfers/s")
	b.ReportMetric(float64(reqs)/elapsed.Seconds(), "requests/s")
	b.ReportMetric(float64(reqs)/float64(b.N*benchTransfers), "requests/transfer")
}
