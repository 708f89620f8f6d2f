package indexerflow_test

import (
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/vipharness/vipharness/bindings/indexer"
	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/embedded"
	localindexer "github.com/vipharness/vipharness/localnet/indexer"
)

// After the EVM scoring flow, the indexer stand-in (following the rollup live over
// JSON-RPC) lists the deploy, updateScores and finalizeStage transactions with their logs.
var _ = Describe("the indexer after the EVM scoring flow", Label("evm", "embedded", "indexer"), Ordered, func() {
	const stage, n = 4, 1200
	var (
		client    *indexer.Client
		contract  common.Address
		operator  common.Address
		txHashes  map[string]string // hash -> what it was
		chunkTxs  int
		logsTotal int
	)

	BeforeAll(func(ctx SpecContext) {
		r, err := embedded.StartEVM(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx SpecContext) { Expect(r.Stop(ctx)).To(Succeed()) })
		ix, err := localindexer.New(ctx, r.Endpoints().JSONRPC, localindexer.WithPollInterval(20*time.Millisecond))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ix.Close)
		client, err = indexer.NewClient(ix.URL())
		Expect(err).NotTo(HaveOccurred())

		key, err := crypto.HexToECDSA(r.Funded()[0].PrivateKey)
		Expect(err).NotTo(HaveOccurred())
		operator = crypto.PubkeyToAddress(key.PublicKey)
		s, err := deployer.Open(ctx, deployer.Config{VM: vip.EVM, JSONRPC: r.Endpoints().JSONRPC, Operator: keys.FromECDSA(key, "operator key"), Push: deployer.PushConfig{JournalDir: GinkgoT().TempDir(), ChunkSize: 400}})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		d, err := s.Deploy(ctx, stage)
		Expect(err).NotTo(HaveOccurred())
		contract = common.HexToAddress(d.Contract)
		txHashes = map[string]string{strings.ToLower(d.TxHash): "deploy"}
		res, err := s.UpdateScores(ctx, stage, scores.Generate(n, 5))
		Expect(err).NotTo(HaveOccurred())
		chunkTxs = len(res.Hashes)
		for _, h := range res.Hashes {
			txHashes[strings.ToLower(h)] = "updateScores"
		}
		fin, err := s.FinalizeStage(ctx, stage)
		Expect(err).NotTo(HaveOccurred())
		txHashes[strings.ToLower(fin)] = "finalizeStage"

		eth, err := ethclient.DialContext(ctx, r.Endpoints().JSONRPC)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(eth.Close)
		head, err := eth.BlockNumber(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(ix.WaitHeight(ctx, head)).To(Succeed())
	})

	It("lists every flow transaction with its logs", func(ctx SpecContext) {
		abi := vipscore.NewVipScore().GetABI()
		update := abi.Events["UpdateScore"].ID.Hex()
		transfer := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)")).Hex()
		seen := map[string]bool{}
		for tx, err := range client.AllEVMTxsByAccount(ctx, operator.Hex(), indexer.Query{Limit: 2, Ascending: true}) {
			Expect(err).NotTo(HaveOccurred())
			kind, ok := txHashes[strings.ToLower(tx.TxHash)]
			if !ok {
				continue
			}
			Expect(seen[tx.TxHash]).To(BeFalse(), "tx %s listed twice", tx.TxHash)
			seen[tx.TxHash] = true
			Expect(tx.Succeeded()).To(BeTrue())
			switch kind {
			case "deploy":
				Expect(tx.ContractAddress).NotTo(BeNil())
				Expect(common.HexToAddress(*tx.ContractAddress)).To(Equal(contract))
			case "updateScores":
				Expect(common.HexToAddress(tx.To)).To(Equal(contract))
				for _, l := range tx.Logs {
					if len(l.Topics) > 0 && strings.EqualFold(l.Topics[0], update) {
						logsTotal++
					}
				}
			case "finalizeStage":
				// The contract's two, beside the fee token's Transfer logs (the fee paid, the
				// unused gas refunded), as a minievm's receipts hold them.
				var own []string
				for _, l := range tx.Logs {
					if common.HexToAddress(l.Address) == contract {
						own = append(own, l.Topics[0])
						continue
					}
					Expect(l.Topics).NotTo(BeEmpty())
					Expect(l.Topics[0]).To(Equal(transfer), "a log of another contract than the fee token's Transfer")
				}
				Expect(own).To(Equal([]string{abi.Events["FinalizeStage"].ID.Hex(), abi.Events["CreateStage"].ID.Hex()}), "FinalizeStage and CreateStage")
			}
		}
		Expect(seen).To(HaveLen(len(txHashes)))
		Expect(logsTotal).To(Equal(n), "one UpdateScore log per address")
		Expect(chunkTxs).To(BeNumerically(">", 1))
	})

	It("pages forwards and backwards over every tx exactly once, with matching totals", func(ctx SpecContext) {
		first, err := client.EVMTxs(ctx, indexer.Query{Limit: 1})
		Expect(err).NotTo(HaveOccurred())
		total, err := first.Pagination.TotalCount()
		Expect(err).NotTo(HaveOccurred())
		Expect(total).To(BeNumerically(">=", int64(len(txHashes))))

		collect := func(q indexer.Query) []string {
			var out []string
			for tx, err := range client.AllEVMTxs(ctx, q) {
				Expect(err).NotTo(HaveOccurred())
				out = append(out, tx.TxHash)
			}
			return out
		}
		forward := collect(indexer.Query{Limit: 3, Ascending: true})
		backward := collect(indexer.Query{Limit: 3})
		Expect(forward).To(HaveLen(int(total)))
		Expect(backward).To(HaveLen(int(total)))
		for i := range forward {
			Expect(backward[len(backward)-1-i]).To(Equal(forward[i]))
		}
		unique := map[string]bool{}
		for _, h := range forward {
			unique[h] = true
		}
		Expect(unique).To(HaveLen(int(total)))
	})

	It("answers bad parameters with the documented errors", func(ctx SpecContext) {
		_, err := client.EVMTxs(ctx, indexer.Query{Limit: 1001})
		Expect(indexer.IsBadRequest(err)).To(BeTrue(), "%v", err)
		_, err = client.EVMTxs(ctx, indexer.Query{Limit: -1})
		Expect(indexer.IsBadRequest(err)).To(BeTrue(), "%v", err)
		_, err = client.EVMTx(ctx, "0x"+strings.Repeat("ab", 32))
		Expect(indexer.IsNotFound(err)).To(BeTrue(), "%v", err)
	})
})
