package policy_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/indexer"
	"github.com/vipharness/vipharness/localnet/l1"
)

const (
	bridgeID = 1
	l1Stage  = 1 // the L1's stage at genesis: the bridge registered then scores from stage 2
	stage    = 2 // the stage scored
	interval = time.Hour
)

var fixtures = filepath.Join("..", "..", "fixtures", "policies")

// timeShifter is a rollup whose next block's clock can be moved on (the embedded EVM).
type timeShifter interface{ AdjustTime(time.Duration) error }

// chainOps sends the demo's transactions one at a time and waits for each receipt.
type chainOps struct {
	c       *ethclient.Client
	chainID *big.Int
}

func (o chainOps) send(ctx context.Context, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte) *types.Receipt {
	GinkgoHelper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := o.c.PendingNonceAt(ctx, from)
	Expect(err).NotTo(HaveOccurred())
	gas, err := o.c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Value: value, Data: data})
	Expect(err).NotTo(HaveOccurred())
	head, err := o.c.HeaderByNumber(ctx, nil)
	Expect(err).NotTo(HaveOccurred())
	tip := big.NewInt(1)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(o.chainID), &types.DynamicFeeTx{
		ChainID: o.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas * 2, To: to, Value: value, Data: data,
	})
	Expect(err).NotTo(HaveOccurred())
	Expect(o.c.SendTransaction(ctx, tx)).To(Succeed())
	fmt.Fprintf(GinkgoWriter, "%s sent tx %s (nonce %d, %d bytes of data)\n", time.Now().Format("15:04:05.000"), tx.Hash().Hex(), nonce, len(data))
	var rcpt *types.Receipt
	Eventually(func() error {
		rcpt, err = o.c.TransactionReceipt(ctx, tx.Hash())
		return err
	}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
	Expect(rcpt.Status).To(Equal(types.ReceiptStatusSuccessful), "tx %s", tx.Hash().Hex())
	// A minievm can answer reads at latest right after a receipt from the state before the
	// tx (its EVM indexer serves receipts before the state commits): the next estimate must
	// see this tx, so wait until the sender's nonce at latest shows it.
	Eventually(func() (uint64, error) { return o.c.NonceAt(ctx, from, nil) }).WithContext(ctx).
		WithTimeout(10 * time.Second).WithPolling(5 * time.Millisecond).Should(BeNumerically(">", nonce))
	return rcpt
}

// activity is what the spec did, as the policy's formulas need it.
type activity struct {
	kind     string // "transfer", "play", "send"
	from, to common.Address
	value    *big.Int
	block    uint64
	time     uint64
}

func ether(milli int64) *big.Int { return new(big.Int).Mul(big.NewInt(milli), big.NewInt(1e15)) }
func tokens(n int64) *big.Int    { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// expected scores the activity by the formulas in demo-token.yaml's header, written out
// here independently of the policy engine.
func expected(acts []activity, start, end uint64, operator common.Address) map[common.Address]uint64 {
	in := func(a activity) bool { return a.time >= start && a.time < end }
	per := map[common.Address]*big.Rat{}
	add := func(u common.Address, v *big.Rat) {
		if per[u] == nil {
			per[u] = new(big.Rat)
		}
		per[u].Add(per[u], v)
	}
	oneE18, oneE15 := new(big.Rat).SetInt(tokens(1)), new(big.Rat).SetInt(ether(1))
	volume := map[common.Address]*big.Rat{}
	days := map[common.Address]map[uint64]bool{}
	for _, a := range acts {
		if !in(a) {
			continue
		}
		switch a.kind {
		case "transfer":
			if a.from == (common.Address{}) {
				continue
			}
			if volume[a.from] == nil {
				volume[a.from], days[a.from] = new(big.Rat), map[uint64]bool{}
			}
			volume[a.from].Add(volume[a.from], new(big.Rat).Quo(new(big.Rat).SetInt(a.value), oneE18))
			days[a.from][a.time/86400] = true
		case "play":
			add(a.from, big.NewRat(5, 1))
		case "send":
			add(a.from, new(big.Rat).Quo(new(big.Rat).SetInt(a.value), oneE15))
		}
	}
	for u, v := range volume {
		add(u, new(big.Rat).Set(minRat(v, big.NewRat(1000, 1))))
		add(u, big.NewRat(int64(2*len(days[u])), 1))
	}
	// Holding: each balance times the seconds it was held inside [start, end), over the span.
	bal := map[common.Address]*big.Rat{}
	since := map[common.Address]uint64{}
	integral := map[common.Address]*big.Rat{}
	clamp := func(t uint64) uint64 { return min(max(t, start), end) }
	accrue := func(u common.Address, t uint64) {
		if b := bal[u]; b != nil {
			if integral[u] == nil {
				integral[u] = new(big.Rat)
			}
			integral[u].Add(integral[u], new(big.Rat).Mul(b, new(big.Rat).SetUint64(clamp(t)-clamp(since[u]))))
		} else {
			bal[u] = new(big.Rat)
		}
		since[u] = t
	}
	for _, a := range acts {
		if a.kind != "transfer" {
			continue
		}
		v := new(big.Rat).Quo(new(big.Rat).SetInt(a.value), oneE18)
		if a.from != (common.Address{}) {
			accrue(a.from, a.time)
			bal[a.from].Sub(bal[a.from], v)
		}
		accrue(a.to, a.time)
		bal[a.to].Add(bal[a.to], v)
	}
	for u := range bal {
		accrue(u, end)
		add(u, new(big.Rat).Quo(integral[u], new(big.Rat).SetUint64(end-start)))
	}
	out := map[common.Address]uint64{}
	for u, v := range per {
		if u == operator || v.Sign() <= 0 {
			continue
		}
		if f := new(big.Int).Quo(v.Num(), v.Denom()); f.Sign() > 0 {
			out[u] = f.Uint64()
		}
	}
	return out
}

func minRat(a, b *big.Rat) *big.Rat {
	if a.Cmp(b) < 0 {
		return a
	}
	return b
}

func readScores(path string) map[common.Address]uint64 {
	GinkgoHelper()
	entries, err := scores.ParseFile(path, "")
	Expect(err).NotTo(HaveOccurred())
	out := map[common.Address]uint64{}
	for _, e := range entries {
		out[common.HexToAddress(e.Addr)] = e.Amount
	}
	return out
}

var _ = Describe("scoring policy", func() {
	for _, target := range harness.Targets() {
		if target.VM != vip.EVM || target.Engine.Name() != "embedded-geth" {
			continue // the spec moves the rollup's clock: the geth EVM can
		}
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "policy"), Ordered, func() {
			var (
				env      *harness.Env
				ops      chainOps
				operator *ecdsa.PrivateKey
				opAddr   common.Address
				token    common.Address
				tokenABI abi.ABI
				acts     []activity
				contract string
				stateDir string
				ix       *indexer.Indexer
				outRoot  string
				outNode  string
				outIx    string
			)

			AfterEach(func() {
				if CurrentSpecReport().Failed() && env != nil {
					if logs := env.FailureLogs(); logs != "" {
						AddReportEntry("node log", logs)
					}
				}
			})

			BeforeAll(func(ctx SpecContext) {
				var err error
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir(), l1.WithStageInterval(interval),
					l1.WithBridge(l1.Bridge{ID: bridgeID, VM: vip.EVM, Contract: "scoring contract"}))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
				stateDir, outRoot = GinkgoT().TempDir(), GinkgoT().TempDir() // for every spec of the container
				c, err := ethclient.DialContext(ctx, env.Rollup.Endpoints().JSONRPC)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(c.Close)
				id, err := c.ChainID(ctx)
				Expect(err).NotTo(HaveOccurred())
				ops = chainOps{c, id}
				operator, err = crypto.HexToECDSA(env.OperatorSecret())
				Expect(err).NotTo(HaveOccurred())
				opAddr = crypto.PubkeyToAddress(operator.PublicKey)
				raw, err := os.ReadFile(filepath.Join(fixtures, "evm", "DemoToken.abi.json"))
				Expect(err).NotTo(HaveOccurred())
				tokenABI, err = abi.JSON(bytes.NewReader(raw))
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(2*time.Minute))

			It("drives the demo app before the L1's stage, inside it and after it", func(ctx SpecContext) {
				scorer, err := env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := scorer.Deploy(ctx, stage)
				Expect(err).NotTo(HaveOccurred())
				contract = d.Contract

				bin, err := os.ReadFile(filepath.Join(fixtures, "evm", "DemoToken.bin"))
				Expect(err).NotTo(HaveOccurred())
				rc := ops.send(ctx, operator, nil, nil, common.FromHex(strings.TrimSpace(string(bin))))
				token = rc.ContractAddress
				call := func(key *ecdsa.PrivateKey, method string, args ...any) *types.Receipt {
					GinkgoHelper()
					data, err := tokenABI.Pack(method, args...)
					Expect(err).NotTo(HaveOccurred())
					return ops.send(ctx, key, &token, nil, data)
				}
				users := make([]*ecdsa.PrivateKey, 4)
				addrs := make([]common.Address, 4)
				for i := range users {
					users[i], err = crypto.GenerateKey()
					Expect(err).NotTo(HaveOccurred())
					addrs[i] = crypto.PubkeyToAddress(users[i].PublicKey)
					r := ops.send(ctx, operator, &addrs[i], ether(1000), nil) // gas money: the operator is excluded
					acts = append(acts, activity{kind: "send", from: opAddr, to: addrs[i], value: ether(1000), block: r.BlockNumber.Uint64()})
				}
				shifter, ok := env.Rollup.(timeShifter)
				Expect(ok).To(BeTrue(), "the embedded EVM moves its clock")
				transfer := func(from *ecdsa.PrivateKey, to common.Address, n int64) {
					r := call(from, "transfer", to, tokens(n))
					acts = append(acts, activity{kind: "transfer", from: crypto.PubkeyToAddress(from.PublicKey), to: to, value: tokens(n), block: r.BlockNumber.Uint64()})
				}
				for i, n := range []int64{1500, 50, 10} {
					r := call(operator, "mint", addrs[i], tokens(n))
					acts = append(acts, activity{kind: "transfer", to: addrs[i], value: tokens(n), block: r.BlockNumber.Uint64()})
				}
				transfer(users[2], addrs[1], 1) // in stage 1: counts only in balances
				By("moving the rollup's clock into stage 2")
				Expect(shifter.AdjustTime(interval)).To(Succeed()) // stage 2 starts an hour after the L1's genesis
				transfer(users[0], addrs[1], 1200)                 // volume capped at 1,000
				transfer(users[1], addrs[2], 5)
				transfer(users[1], addrs[3], 7)
				transfer(users[2], addrs[0], 3)
				for _, p := range []int{2, 2, 0, 3} {
					r := call(users[p], "play", big.NewInt(int64(len(acts))))
					acts = append(acts, activity{kind: "play", from: addrs[p], block: r.BlockNumber.Uint64()})
				}
				r := ops.send(ctx, users[1], &addrs[3], ether(7), nil)
				acts = append(acts, activity{kind: "send", from: addrs[1], to: addrs[3], value: ether(7), block: r.BlockNumber.Uint64()})

				By("moving the rollup's clock past stage 2")
				// After the stage: none of this may count, except in balances held before it.
				Expect(shifter.AdjustTime(interval)).To(Succeed())
				transfer(users[0], addrs[3], 100)
				r = call(users[3], "play", big.NewInt(99))
				acts = append(acts, activity{kind: "play", from: addrs[3], block: r.BlockNumber.Uint64()})

				for i := range acts {
					h, err := ops.c.HeaderByNumber(ctx, new(big.Int).SetUint64(acts[i].block))
					Expect(err).NotTo(HaveOccurred())
					acts[i].time = h.Time
				}
				// The L1 moves past the stage: its times are kept in the stage's data.
				Expect(env.L1.Set(ctx, stage+1)).To(Succeed())
			}, SpecTimeout(3*time.Minute))

			It("computes the stage from the node and from the indexer, byte for byte, as the formulas say", func(ctx SpecContext) {
				var err error
				ix, err = indexer.New(ctx, env.Rollup.Endpoints().JSONRPC, indexer.WithPollInterval(20*time.Millisecond))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(ix.Close)
				head, err := ops.c.BlockNumber(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(ix.WaitHeight(ctx, head)).To(Succeed())

				policyFile := filepath.Join(fixtures, "demo-token.yaml")
				outNode, outIx = filepath.Join(outRoot, "node"), filepath.Join(outRoot, "indexer")
				args := []string{"scores", "compute", "--policy", policyFile, "--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID),
					"--param", "token=" + token.Hex(), "--param", "operator=" + opAddr.Hex(), "--log-span", "7"}
				out, code := env.RunVipctl(ctx, vipctl, stateDir, append(args, "--out", outNode)...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("from the node"))
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append(args, "--out", outIx, "--indexer", ix.URL())...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("from the indexer"))

				a, err := os.ReadFile(filepath.Join(outNode, policy.ScoreFileName))
				Expect(err).NotTo(HaveOccurred())
				b, err := os.ReadFile(filepath.Join(outIx, policy.ScoreFileName))
				Expect(err).NotTo(HaveOccurred())
				Expect(b).To(Equal(a), "the same policy and chain give the same score file from either source")
				var mn, mi policy.Manifest
				for path, m := range map[string]*policy.Manifest{outNode: &mn, outIx: &mi} {
					raw, err := os.ReadFile(filepath.Join(path, policy.ManifestName))
					Expect(err).NotTo(HaveOccurred())
					Expect(json.Unmarshal(raw, m)).To(Succeed())
				}
				Expect(mn.Source.Kind).To(Equal("node"))
				Expect(mi.Source.Kind).To(Equal("indexer"))
				Expect(mi.Source.Height).To(BeNumerically(">=", mi.Window.LastBlock))
				mi.Source = mn.Source
				Expect(mi).To(Equal(mn), "the manifests differ only in their source")

				// The stage is the L1's second hour; its blocks are the rollup's
				// first and last inside it, and their hashes are the chain's.
				times, err := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil).StageTimes(ctx, stage)
				Expect(err).NotTo(HaveOccurred())
				Expect(times.End - times.Start).To(BeEquivalentTo(interval / time.Second))
				Expect([2]uint64{mn.Window.StartTime, mn.Window.EndTime}).To(Equal([2]uint64{times.Start, times.End}))
				for _, bnd := range []struct {
					n    uint64
					hash string
				}{{mn.Window.FirstBlock, mn.Window.FirstBlockHash}, {mn.Window.LastBlock, mn.Window.LastBlockHash}} {
					h, err := ops.c.HeaderByNumber(ctx, new(big.Int).SetUint64(bnd.n))
					Expect(err).NotTo(HaveOccurred())
					Expect(h.Hash().Hex()).To(Equal(bnd.hash))
					Expect(h.Time).To(And(BeNumerically(">=", times.Start), BeNumerically("<", times.End)))
				}
				before, err := ops.c.HeaderByNumber(ctx, new(big.Int).SetUint64(mn.Window.LastBlock+1))
				Expect(err).NotTo(HaveOccurred())
				Expect(before.Time).To(BeNumerically(">=", times.End), "the block after the last is past the stage")

				want := expected(acts, times.Start, times.End, opAddr)
				Expect(want).To(HaveLen(4), "every user scores; the operator does not")
				Expect(readScores(filepath.Join(outNode, policy.ScoreFileName))).To(Equal(want))
				var total uint64
				for _, v := range want {
					total += v
				}
				Expect(mn.Merkle.Total).To(Equal(strconv.FormatUint(total, 10)))
				AddReportEntry("scores", string(a))
			}, SpecTimeout(3*time.Minute))

			It("refuses a stage the L1 has not reached and names a bad policy's line", func(ctx SpecContext) {
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "scores", "compute", "--policy", filepath.Join(fixtures, "demo-token.yaml"),
					"--stage", "4", "--bridge-id", "1", "--out", GinkgoT().TempDir())
				Expect(code).To(Equal(1), out)
				Expect(out).To(ContainSubstring("the L1 has not reached this stage"))

				src, err := os.ReadFile(filepath.Join(fixtures, "demo-token.yaml"))
				Expect(err).NotTo(HaveOccurred())
				bad := strings.Replace(string(src), "amount: args.value / 1e18\n    aggregate: sum", "amount: args.value / \n    aggregate: sum", 1)
				Expect(bad).NotTo(Equal(string(src)))
				path := filepath.Join(GinkgoT().TempDir(), "bad.yaml")
				Expect(os.WriteFile(path, []byte(bad), 0o600)).To(Succeed())
				line := 1 + strings.Count(bad[:strings.Index(bad, "amount: args.value / \n")], "\n")
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "scores", "compute", "--policy", path, "--stage", "2", "--bridge-id", "1")
				Expect(code).To(Equal(2), out)
				Expect(out).To(ContainSubstring(fmt.Sprintf("line %d: amount:", line)))
			}, SpecTimeout(time.Minute))

			It("pushes and finalizes the scores, and the agent's snapshot holds the manifest's root", func(ctx SpecContext) {
				m := pushAndSnapshot(ctx, env, stateDir, contract, outNode)

				// And vipctl audit, rebuilding the stage from the contract, finds the L1's.
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "--contract", contract, "audit", "--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID))
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("merkle root " + strings.TrimPrefix(m.Merkle.Root, "0x")))
				Expect(out).To(ContainSubstring("matches the L1 snapshot"))

				// compute --compare finds the contract's stage the policy's; a policy over another
				// token scores native sends only, and every address the contract holds is named
				// with both scores (exit 4).
				args := []string{"--contract", contract, "scores", "compute", "--compare", "--policy", filepath.Join(fixtures, "demo-token.yaml"),
					"--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID), "--param", "operator=" + opAddr.Hex()}
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append(args, "--param", "token="+token.Hex(), "--out", filepath.Join(outRoot, "same"))...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring(fmt.Sprintf("the contract's stage %d (finalized, 4 rows, total %s) holds the policy's scores", stage, m.Merkle.Total)))
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append(args, "--param", "token="+opAddr.Hex(), "--out", filepath.Join(outRoot, "other"))...)
				Expect(code).To(Equal(4), out)
				Expect(out).To(ContainSubstring("differs at 4 addresses"))
				for a, v := range readScores(filepath.Join(outNode, policy.ScoreFileName)) {
					Expect(out).To(MatchRegexp(`%s: policy \d+, contract %d\n`, a.Hex(), v))
				}
			}, SpecTimeout(3*time.Minute))

			It("audits the stage by the policy: the L1's root, a tampered contract named address by address (exit 4), and a bridge the L1 does not know yet", func(ctx SpecContext) {
				base := []string{"audit", "--policy", filepath.Join(fixtures, "demo-token.yaml"), "--stage", strconv.Itoa(stage),
					"--param", "token=" + token.Hex(), "--param", "operator=" + opAddr.Hex()}
				want := readScores(filepath.Join(outNode, policy.ScoreFileName))
				var m policy.Manifest
				raw, err := os.ReadFile(filepath.Join(outNode, policy.ManifestName))
				Expect(err).NotTo(HaveOccurred())
				Expect(json.Unmarshal(raw, &m)).To(Succeed())

				By("the pushed and finalized stage, read from the indexer: the policy's scores, the L1 snapshot's root")
				ix, err := indexer.New(ctx, env.Rollup.Endpoints().JSONRPC, indexer.WithPollInterval(20*time.Millisecond))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(ix.Close)
				head, err := ops.c.BlockNumber(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(ix.WaitHeight(ctx, head)).To(Succeed())
				proofs := filepath.Join(outRoot, "audit-proofs.jsonl")
				out, code := env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", contract}, append(base, "--bridge-id", strconv.Itoa(bridgeID), "--proofs", proofs, "--indexer", ix.URL())...)...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("from the indexer"))
				Expect(out).To(ContainSubstring("merkle root " + strings.TrimPrefix(m.Merkle.Root, "0x")))
				Expect(out).To(ContainSubstring(fmt.Sprintf("the contract's stage %d (finalized, 4 rows, total %s) holds the policy's scores", stage, m.Merkle.Total)))
				Expect(out).To(ContainSubstring("matches the L1 snapshot"))
				lines, err := os.ReadFile(proofs)
				Expect(err).NotTo(HaveOccurred())
				Expect(strings.Count(string(lines), "\n")).To(Equal(len(want)))

				By("another contract whose stage holds a changed score, lacks an address and has one the policy does not score")
				scorer, err := env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := scorer.Deploy(ctx, stage, deployer.AnotherDeployment())
				Expect(err).NotTo(HaveOccurred())
				addrs := make([]common.Address, 0, len(want))
				for a := range want {
					addrs = append(addrs, a)
				}
				slices.SortFunc(addrs, func(a, b common.Address) int { return bytes.Compare(a[:], b[:]) })
				changed, dropped, stranger := addrs[0], addrs[1], common.HexToAddress("0x00000000000000000000000000000000000000aa")
				var csv strings.Builder
				for _, a := range addrs {
					switch a {
					case changed:
						fmt.Fprintf(&csv, "%s,%d\n", a.Hex(), want[a]+1)
					case dropped:
					default:
						fmt.Fprintf(&csv, "%s,%d\n", a.Hex(), want[a])
					}
				}
				fmt.Fprintf(&csv, "%s,%d\n", stranger.Hex(), 42)
				tampered := filepath.Join(outRoot, "tampered.csv")
				Expect(os.WriteFile(tampered, []byte(csv.String()), 0o600)).To(Succeed())
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "--contract", d.Contract, "scores", "update", "--file", tampered, "--stage", strconv.Itoa(stage))
				Expect(code).To(Equal(0), out)
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", d.Contract}, append(base, "--bridge-id", strconv.Itoa(bridgeID))...)...)
				Expect(code).To(Equal(4), out)
				Expect(out).To(ContainSubstring("differs from the policy at 3 addresses"))
				Expect(out).To(ContainSubstring(fmt.Sprintf("%s: policy %d, contract %d\n", changed.Hex(), want[changed], want[changed]+1)))
				Expect(out).To(ContainSubstring(fmt.Sprintf("%s: policy %d, missing on chain\n", dropped.Hex(), want[dropped])))
				Expect(out).To(ContainSubstring(fmt.Sprintf("%s: contract 42, the policy gives no score\n", stranger.Hex())))
				Expect(out).To(ContainSubstring("matches the L1 snapshot"), "the L1's snapshot is of the policy's scores")
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--json", "--contract", d.Contract}, append(base, "--bridge-id", strconv.Itoa(bridgeID))...)...)
				Expect(code).To(Equal(4), out)
				Expect(out).To(ContainSubstring(`"on_chain": false`))

				By("before registration: bridge 7, which the L1 does not know, gives the root and proofs with a note")
				for _, args := range [][]string{
					append(base, "--bridge-id", "7", "--proofs", filepath.Join(outRoot, "bridge7.jsonl")),
					{"audit", "--stage", strconv.Itoa(stage), "--bridge-id", "7"},
				} {
					out, code = env.RunVipctl(ctx, vipctl, stateDir, append([]string{"--contract", contract}, args...)...)
					Expect(code).To(Equal(0), out)
					Expect(out).To(ContainSubstring("the L1 does not know bridge 7 yet"))
					Expect(out).To(MatchRegexp(`bridge 7 stage %d.*: merkle root [0-9a-f]{64}, total_l2_score %s`, stage, m.Merkle.Total))
					Expect(out).NotTo(ContainSubstring(strings.TrimPrefix(m.Merkle.Root, "0x")), "bridge 7's leaves are not bridge 1's")
				}
			}, SpecTimeout(3*time.Minute))

			It("operates stages 3 and 4 by the policy: each computed once it ends, pushed and finalized; another pass writes nothing", func(ctx SpecContext) {
				shifter, ok := env.Rollup.(timeShifter)
				Expect(ok).To(BeTrue())
				call := func(key *ecdsa.PrivateKey, method string, args ...any) {
					GinkgoHelper()
					data, err := tokenABI.Pack(method, args...)
					Expect(err).NotTo(HaveOccurred())
					ops.send(ctx, key, &token, nil, data)
				}
				users := make([]*ecdsa.PrivateKey, 3)
				addrs := make([]common.Address, 3)
				for i := range users {
					var err error
					users[i], err = crypto.GenerateKey()
					Expect(err).NotTo(HaveOccurred())
					addrs[i] = crypto.PubkeyToAddress(users[i].PublicKey)
					ops.send(ctx, operator, &addrs[i], ether(1000), nil)
					call(operator, "mint", addrs[i], tokens(100))
				}
				l1r := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil)
				t3, err := l1r.StageTimes(ctx, stage+1)
				Expect(err).NotTo(HaveOccurred())
				head, err := ops.c.HeaderByNumber(ctx, nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.Time).To(And(BeNumerically(">=", t3.Start), BeNumerically("<", t3.End)), "the rollup's clock is inside stage 3")

				By("activity in stage 3, then in stage 4, then a block past stage 4")
				call(users[0], "transfer", addrs[1], tokens(10))
				call(users[1], "play", big.NewInt(3))
				Expect(shifter.AdjustTime(interval)).To(Succeed())
				call(users[1], "transfer", addrs[2], tokens(4))
				call(users[2], "play", big.NewInt(4))
				call(users[2], "play", big.NewInt(5))
				Expect(shifter.AdjustTime(interval)).To(Succeed())
				ops.send(ctx, operator, &addrs[0], ether(1), nil)
				Expect(env.L1.Set(ctx, stage+3)).To(Succeed())

				policyArgs := []string{"--policy", filepath.Join(fixtures, "demo-token.yaml"), "--bridge-id", strconv.Itoa(bridgeID),
					"--param", "token=" + token.Hex(), "--param", "operator=" + opAddr.Hex()}
				on := operated{
					sent: func() uint64 {
						n, err := ops.c.BlockNumber(ctx)
						Expect(err).NotTo(HaveOccurred())
						return n
					},
					readScores: readScores,
				}
				got := operateByPolicy(ctx, env, on, stateDir, contract, outRoot, policyArgs, []int{stage + 1, stage + 2}, stage+3)
				Expect(got[stage+1]).To(HaveKey(addrs[0]), "stage 3: addrs[0] sent DEMO")
				Expect(got[stage+2][addrs[2]]).To(BeNumerically(">=", 10), "stage 4: two plays")
			}, SpecTimeout(4*time.Minute))

			It("writes the registry profile's vip.actions and the forum post's formulas from the policy", func(ctx SpecContext) {
				policyFile := filepath.Join(fixtures, "demo-token.yaml")
				p, err := policy.Load(policyFile, nil)
				Expect(err).NotTo(HaveOccurred())
				Expect(p.Actions).To(HaveLen(5))

				By("vipctl registry --policy: the profile lists the policy's actions, and the entry passes the registry's rules")
				regDir := filepath.Join(outRoot, "registry")
				out, code := env.RunVipctl(ctx, vipctl, stateDir, "--network", "testnet", "registry", "--rest", env.Rollup.Endpoints().REST,
					"--name", "demotoken", "--pretty-name", "Demo Token", "--category", "Gaming", "--description", "A demo app scored by a published policy.",
					"--public-rpc", "https://rpc.demo.example", "--public-rest", "https://rest.demo.example",
					"--public-json-rpc", "https://jsonrpc.demo.example", "--public-json-rpc-ws", "wss://jsonrpc-ws.demo.example",
					"--op-bridge-id", strconv.Itoa(bridgeID), "--asset-symbol", "MIN", "--asset-decimals", "18", "--logo", "https://demo.example/logo.png",
					"--policy", policyFile, "--out", regDir)
				Expect(code).To(Equal(0), out)
				raw, err := os.ReadFile(filepath.Join(regDir, "profiles", "demotoken.json"))
				Expect(err).NotTo(HaveOccurred())
				var profile struct {
					VIP struct {
						Actions []policy.Action `json:"actions"`
					} `json:"vip"`
				}
				Expect(json.Unmarshal(raw, &profile)).To(Succeed())
				Expect(profile.VIP.Actions).To(Equal(p.Actions))
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "registry", "validate", filepath.Join(regDir, "testnets", "demotoken"))
				Expect(code).To(Equal(0), out)
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "--network", "testnet", "registry", "--rest", env.Rollup.Endpoints().REST, "--name", "demotoken",
					"--policy", policyFile, "--vip-action", "Play: rounds count", "--out", filepath.Join(outRoot, "registry2"))
				Expect(code).To(Equal(2), out)
				Expect(out).To(ContainSubstring("--policy and --vip-action both name the profile's vip.actions"))

				By("vipctl whitelist --policy: the forum post's scoring criteria hold the policy's formulas with its contracts")
				wl := filepath.Join(outRoot, "whitelist")
				out, code = env.RunVipctl(ctx, vipctl, stateDir, "--network", "mainnet", "--vip-address", env.L1.VIPAddress(), "--vm", "evm", "--contract", contract, "whitelist", "--out", wl,
					"--name", "Demo Token", "--chain-id", "vip-evm-1", "--operator", opAddr.Hex(), "--bridge-id", strconv.Itoa(bridgeID),
					"--bridge-address", "0x000000000000000000000000000000000000b1d9", "--max-rate", "0.2", "--max-change-rate", "0.01", "--rate", "0.05",
					"--proposer", "Demo Team", "--tldr", "Scores for trading, playing and holding DEMO.", "--deposit", "100000000uinit",
					"--policy", policyFile, "--param", "token="+token.Hex(), "--param", "operator="+opAddr.Hex())
				Expect(code).To(Equal(0), out)
				post, err := os.ReadFile(filepath.Join(wl, "forum-post.md"))
				Expect(err).NotTo(HaveOccurred())
				criteria := string(post)[strings.Index(string(post), "### VIP scoring criteria"):strings.Index(string(post), "## 4. Proposal Details")]
				AddReportEntry("forum post: scoring criteria", criteria)
				lower := strings.ToLower
				for _, want := range []string{
					"**score(u) = ⌊ volume(u) + 5 × plays(u) + 2 × days(u) + holding(u) + sends(u) ⌋**",
					"volume(u) = min(x_volume(u), 1000)",
					"plays(u) = #{r ∈ plays : `tx.from` = u}",
					"holding(u) = (1 / (t₁ − t₀)) ∫_{t₀}^{t₁} b_u(t) dt",
					fmt.Sprintf("calling `play(uint256)` on `%s`", lower(token.Hex())),
					fmt.Sprintf("Excluded (never score): `%s`", lower(opAddr.Hex())),
					fmt.Sprintf("sha256:%x", p.Digest),
				} {
					Expect(criteria).To(ContainSubstring(want))
				}
			}, SpecTimeout(2*time.Minute))
		})
	}
})
