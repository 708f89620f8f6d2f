package wasmexec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// BenchmarkUpdateScores measures the node's ceiling for update_scores txs of the VIP contract,
// each writing fresh addresses: signed beforehand, then broadcast one after another either in
// process (Node.BroadcastTxSync) or over the CometBFT RPC (broadcast_tx_sync). Each accepted tx
// is executed and sealed in its own block before the broadcast returns.
func BenchmarkUpdateScores(b *testing.B) {
	for _, per := range []int{100, 1000} {
		for _, path := range []string{"direct", "rpc"} {
			b.Run(fmt.Sprintf("%s/%d-addrs", path, per), func(b *testing.B) {
				ctx := context.Background()
				tn := start(b, devnode.WithMaxTxBytes(4<<20))
				contract := tn.deploy(b, 1)
				s := tn.keys[0]
				gas := uint64(per)*12_000 + 500_000
				txs := make([][]byte, b.N)
				for i := range txs {
					tx, err := tn.c.SignTx(ctx, s, gas, scoresMsg(s.Address, contract, 1, addrs(i+1, per)))
					if err != nil {
						b.Fatal(err)
					}
					txs[i] = tx
					s.Sequence++
				}
				var last []byte
				b.ResetTimer()
				for _, tx := range txs {
					if path == "direct" {
						res, err := tn.node.BroadcastTxSync(ctx, tx)
						if err != nil || res.Code != 0 {
							b.Fatalf("broadcast: %+v %v", res, err)
						}
						last = res.Hash
					} else {
						res, err := tn.c.Broadcast(ctx, tx)
						if err != nil || res.Code != 0 {
							b.Fatalf("broadcast: %+v %v", res, err)
						}
						last = res.Hash
					}
				}
				b.StopTimer()
				res, err := tn.node.Tx(last)
				if err != nil || res.TxResult.Code != 0 {
					b.Fatalf("last tx: %+v %v", res, err)
				}
				secs := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/secs, "txs/s")
				b.ReportMetric(float64(b.N*per)/secs, "addrs/s")
				b.ReportMetric(float64(res.TxResult.GasUsed), "gas/tx")
			})
		}
	}
}
