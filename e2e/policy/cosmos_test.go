package policy_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	sdkmath "cosmossdk.io/math"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/l1node"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/policy"
	"github.com/vipharness/vipharness/deployer/scores"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/e2e/harness"
	"github.com/vipharness/vipharness/localnet/indexer"
	"github.com/vipharness/vipharness/localnet/l1"
)

// cosmosInterval is the L1's stage length on the Cosmos rollups, whose clocks are real
// (CometBFT's block times): stage 1 holds the set-up, stage 2 the scored activity.
const cosmosInterval = 30 * time.Second

// cosmosAct is one thing the Cosmos spec did, as the policies' formulas need it.
type cosmosAct struct {
	kind   string // "play", "send", "quest"
	user   common.Address
	points uint64 // play: points; send: umin; quest: the score given
	height int64
	time   uint64
}

// cosmosExpected scores the activity inside [start, end) by the formulas in the headers of
// demo-arena-move.yaml and demo-arena-wasm.yaml, written out independently of the policy
// engine.
func cosmosExpected(vm vip.VM, acts []cosmosAct, start, end uint64, operator common.Address) map[common.Address]uint64 {
	per := map[common.Address]*big.Rat{}
	add := func(u common.Address, v *big.Rat) {
		if per[u] == nil {
			per[u] = new(big.Rat)
		}
		per[u].Add(per[u], v)
	}
	points := map[common.Address]uint64{}
	days := map[common.Address]map[uint64]bool{}
	for _, a := range acts {
		if a.time < start || a.time >= end {
			continue
		}
		switch a.kind {
		case "play":
			points[a.user] += a.points
			add(a.user, big.NewRat(5, 1))
			if vm != vip.Move {
				continue // days count on Move only
			}
			if days[a.user] == nil {
				days[a.user] = map[uint64]bool{}
			}
			days[a.user][a.time/86400] = true
		case "send":
			add(a.user, big.NewRat(int64(a.points), 1000))
			if vm == vip.Wasm {
				add(a.user, big.NewRat(3, 1))
			}
		case "quest":
			add(a.user, big.NewRat(int64(2*a.points), 1))
		}
	}
	for u, p := range points {
		add(u, big.NewRat(int64(min(p, 500)), 1))
		add(u, big.NewRat(int64(2*len(days[u])), 1))
	}
	out := map[common.Address]uint64{}
	for u, v := range per {
		if u == operator {
			continue
		}
		if f := new(big.Int).Quo(v.Num(), v.Denom()); f.Sign() > 0 {
			out[u] = f.Uint64()
		}
	}
	return out
}

func readBech32Scores(path string) map[common.Address]uint64 {
	GinkgoHelper()
	entries, err := scores.ParseFile(path, "")
	Expect(err).NotTo(HaveOccurred())
	out := map[common.Address]uint64{}
	for _, e := range entries {
		hrp, b, err := bech32.DecodeAndConvert(e.Addr)
		Expect(err).NotTo(HaveOccurred())
		Expect(hrp).To(Equal("init"))
		out[common.BytesToAddress(b)] = e.Amount
	}
	return out
}

var _ = Describe("scoring policy on the Cosmos rollups", func() {
	for _, target := range harness.Targets() {
		eng := target.Engine.Name()
		if target.VM == vip.EVM || target.VM == vip.Wasm && (eng == "process" || eng == "container") {
			continue // the Move and Wasm rollups of the project's own app (not wasmd: prefix wasm, denom stake), on real clocks
		}
		Context(target.String(), Label(string(target.VM), target.Engine.Name(), "policy"), Ordered, func() {
			var (
				env        *harness.Env
				c          *cosmostx.Client
				cmt        *rpchttp.HTTP
				policyFile string
				params     []string
				opAddr     common.Address
				acts       []cosmosAct
				contract   string
				stateDir   string
				outRoot    string
				outNode    string
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
				env, err = harness.Start(ctx, target, l1Stage, GinkgoT().TempDir(), l1.WithStageInterval(cosmosInterval),
					l1.WithBridge(l1.Bridge{ID: bridgeID, VM: target.VM, Contract: "scoring contract"}))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(func(ctx SpecContext) { Expect(env.Stop(ctx)).To(Succeed()) }, NodeTimeout(30*time.Second))
				stateDir, outRoot = GinkgoT().TempDir(), GinkgoT().TempDir()
				c = env.Chain.Cosmos()
				Expect(c).NotTo(BeNil())
				// CometBFT's own client reads the blocks and txs back: not the one under test.
				cmt, err = rpchttp.New(env.Rollup.Endpoints().CometRPC, "/websocket")
				Expect(err).NotTo(HaveOccurred())
			}, NodeTimeout(2*time.Minute))

			It("drives the demo app from many accounts before the L1's stage, inside it and after it", func(ctx SpecContext) {
				// Stage 2 follows the L1's current stage 1, which started at the L1's genesis.
				l1r := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil)
				cur, err := l1r.StageTimes(ctx, l1Stage)
				Expect(err).NotTo(HaveOccurred())
				start, end := cur.End, cur.End+uint64(cosmosInterval/time.Second)

				scorer, err := env.Scorer(ctx, "")
				Expect(err).NotTo(HaveOccurred())
				d, err := scorer.Deploy(ctx, stage)
				Expect(err).NotTo(HaveOccurred())
				contract = d.Contract

				newSigner := func() (*cosmostx.Signer, keys.Signer) {
					GinkgoHelper()
					secret := make([]byte, 32)
					_, err := rand.Read(secret)
					Expect(err).NotTo(HaveOccurred())
					a, err := keys.FromHex(hex.EncodeToString(secret))
					Expect(err).NotTo(HaveOccurred())
					k, err := keys.NewSoftware(a, env.KeyType(), "user")
					Expect(err).NotTo(HaveOccurred())
					Expect(env.Fund(ctx, k)).To(Succeed())
					s, err := c.SignerOf(ctx, k)
					Expect(err).NotTo(HaveOccurred())
					return s, k
				}
				addrOf := func(s *cosmostx.Signer) common.Address {
					_, b, err := bech32.DecodeAndConvert(s.Address)
					Expect(err).NotTo(HaveOccurred())
					return common.BytesToAddress(b)
				}
				exec := func(s *cosmostx.Signer, msgs ...sdk.Msg) int64 {
					GinkgoHelper()
					res, err := c.Exec(ctx, s, msgs...)
					Expect(err).NotTo(HaveOccurred())
					fmt.Fprintf(GinkgoWriter, "%s %s: tx %s at height %d\n", time.Now().Format("15:04:05.000"), s.Address, res.TxHash, res.Height)
					return res.Height
				}
				app, appKey := newSigner()
				users := make([]*cosmostx.Signer, 5)
				for i := range users {
					users[i], _ = newSigner()
				}
				send := func(from, to *cosmostx.Signer, umin int64) {
					h := exec(from, &banktypes.MsgSend{FromAddress: from.Address, ToAddress: to.Address, Amount: sdk.NewCoins(sdk.NewCoin("umin", sdkmath.NewInt(umin)))})
					acts = append(acts, cosmosAct{kind: "send", user: addrOf(from), points: uint64(umin), height: h})
				}

				var (
					play  func(i, round int, points uint64) // a user's round in the arena
					quest = func(int, uint64) {}            // the app's quest points for a user (Wasm)
				)
				opKey := mustKey(env.OperatorSecret(), env.KeyType())
				opAddr = common.BytesToAddress(opKey.PubKey().Address())
				params = []string{"--param", "operator=" + opAddr.Hex()}
				switch target.VM {
				case vip.Move:
					policyFile = filepath.Join(fixtures, "demo-arena-move.yaml")
					appAddr := movebcs.AccountAddress(appKey.PubKey().Address())
					code := buildArena(ctx, appAddr)
					exec(app, &initiamove.MsgPublish{Sender: app.Address, CodeBytes: [][]byte{code}, UpgradePolicy: initiamove.COMPATIBLE})
					params = append(params, "--param", "arena="+appAddr.String())
					play = func(i, round int, points uint64) {
						h := exec(users[i], &initiamove.MsgExecute{Sender: users[i].Address, ModuleAddress: appAddr.Short(), ModuleName: "arena", FunctionName: "play",
							Args: [][]byte{movebcs.ArgU64(uint64(round)), movebcs.ArgU64(points)}})
						acts = append(acts, cosmosAct{kind: "play", user: addrOf(users[i]), points: points, height: h})
					}
				case vip.Wasm:
					policyFile = filepath.Join(fixtures, "demo-arena-wasm.yaml")
					// The arena: the committed build of fixtures/policies/wasm/arena, stored and
					// instantiated by its own owner (the app's key signs the quest board's txs,
					// whose sequences its Scorer keeps), played by the users. A Signer is the
					// account's, not the client's: this client knows the Wasm messages.
					ep := env.Rollup.Endpoints()
					wc, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(wasmtypes.RegisterInterfaces))
					Expect(err).NotTo(HaveOccurred())
					wasmApp, _ := newSigner()
					code, err := os.ReadFile(filepath.Join(fixtures, "wasm", "arena.wasm"))
					Expect(err).NotTo(HaveOccurred())
					res, err := wc.Exec(ctx, wasmApp, &wasmtypes.MsgStoreCode{Sender: wasmApp.Address, WASMByteCode: code})
					Expect(err).NotTo(HaveOccurred())
					ids := cosmostx.Attr(res, wasmtypes.EventTypeStoreCode, wasmtypes.AttributeKeyCodeID)
					Expect(ids).To(HaveLen(1))
					codeID, err := strconv.ParseUint(ids[0], 10, 64)
					Expect(err).NotTo(HaveOccurred())
					res, err = wc.Exec(ctx, wasmApp, &wasmtypes.MsgInstantiateContract{Sender: wasmApp.Address, Admin: wasmApp.Address, CodeID: codeID, Label: "demo arena", Msg: []byte("{}")})
					Expect(err).NotTo(HaveOccurred())
					arena := cosmostx.Attr(res, wasmtypes.EventTypeInstantiate, wasmtypes.AttributeKeyContractAddr)
					Expect(arena).To(HaveLen(1))
					params = append(params, "--param", "arena="+arena[0])
					play = func(i, round int, points uint64) {
						GinkgoHelper()
						res, err := wc.Exec(ctx, users[i], &wasmtypes.MsgExecuteContract{Sender: users[i].Address, Contract: arena[0], Msg: []byte(fmt.Sprintf(`{"play":{"round":%d,"points":%d}}`, round, points))})
						Expect(err).NotTo(HaveOccurred())
						acts = append(acts, cosmosAct{kind: "play", user: addrOf(users[i]), points: points, height: res.Height})
					}
					// The quest board: a second instance of the scoring contract, the app's.
					board, err := env.ScorerSigning(ctx, appKey, "")
					Expect(err).NotTo(HaveOccurred())
					bd, err := board.Deploy(ctx, 1)
					Expect(err).NotTo(HaveOccurred())
					params = append(params, "--param", "quests="+bd.Contract)
					quest = func(i int, points uint64) {
						GinkgoHelper()
						res, err := board.UpdateScores(ctx, 1, []scores.Entry{{Addr: users[i].Address, Amount: points}})
						Expect(err).NotTo(HaveOccurred())
						Expect(res.Hashes).To(HaveLen(1))
						hash, err := hex.DecodeString(res.Hashes[0])
						Expect(err).NotTo(HaveOccurred())
						tx, err := cmt.Tx(ctx, hash, false) // CometBFT's: the client knows no Wasm messages
						Expect(err).NotTo(HaveOccurred())
						acts = append(acts, cosmosAct{kind: "quest", user: addrOf(users[i]), points: points, height: tx.Height})
					}
				}

				play(1, 1, 40) // stage 1: nothing counts
				quest(1, 9)
				send(users[1], users[2], 5_000)
				Expect(time.Now().Unix()).To(BeNumerically("<", start), "the set-up outran stage 1 (%s): the machine is too slow for this spec", cosmosInterval)
				By("waiting for the L1's stage 2")
				time.Sleep(time.Until(time.Unix(int64(start), 0)) + 300*time.Millisecond)
				play(0, 2, 300)
				play(0, 3, 350) // points capped at 500 in total
				play(2, 4, 10)
				play(3, 5, 0)
				quest(2, 30)
				quest(4, 12)
				send(users[1], users[4], 250_000)
				send(users[2], users[0], 7_500)
				send(users[1], users[3], 1_999)
				op, err := c.SignerOf(ctx, opKey)
				Expect(err).NotTo(HaveOccurred())
				send(op, users[4], 3_000) // the operator's send: excluded
				Expect(time.Now().Unix()).To(BeNumerically("<", end), "stage 2's activity outran the stage")
				By("waiting for the L1's stage 2 to end")
				time.Sleep(time.Until(time.Unix(int64(end), 0)) + 300*time.Millisecond)
				play(4, 6, 100) // stage 3: none of this counts
				quest(0, 50)
				send(users[3], users[1], 90_000)

				for i := range acts {
					h := acts[i].height
					hd, err := cmt.Header(ctx, &h)
					Expect(err).NotTo(HaveOccurred())
					acts[i].time = uint64(hd.Header.Time.Unix())
				}
				Expect(env.L1.Set(ctx, stage+1)).To(Succeed())
			}, SpecTimeout(4*time.Minute))

			It("computes the stage from the node and from the indexer alone, byte for byte, as the formulas say", func(ctx SpecContext) {
				ep := env.Rollup.Endpoints()
				ix, err := indexer.NewCosmos(ctx, ep.CometRPC, ep.REST, indexer.WithPollInterval(20*time.Millisecond))
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(ix.Close)
				st, err := cmt.Status(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(ix.WaitHeight(ctx, uint64(st.SyncInfo.LatestBlockHeight))).To(Succeed())

				outNode = filepath.Join(outRoot, "node")
				outIx := filepath.Join(outRoot, "indexer")
				args := append([]string{"scores", "compute", "--policy", policyFile, "--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID)}, params...)
				out, code := env.RunVipctl(ctx, vipctl, stateDir, append(args, "--out", outNode)...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("from the node"))
				// The indexer alone: no CometBFT RPC to fall back on.
				out, code = env.RunVipctl(ctx, vipctl, stateDir, append(args, "--out", outIx, "--indexer", ix.URL(), "--comet-rpc", "")...)
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
				mi.Source = mn.Source
				Expect(mi).To(Equal(mn), "the manifests differ only in their source")

				times, err := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil).StageTimes(ctx, stage)
				Expect(err).NotTo(HaveOccurred())
				Expect([2]uint64{mn.Window.StartTime, mn.Window.EndTime}).To(Equal([2]uint64{times.Start, times.End}))
				for _, bnd := range []struct {
					n    uint64
					hash string
				}{{mn.Window.FirstBlock, mn.Window.FirstBlockHash}, {mn.Window.LastBlock, mn.Window.LastBlockHash}} {
					h := int64(bnd.n)
					blk, err := cmt.Block(ctx, &h)
					Expect(err).NotTo(HaveOccurred())
					Expect(strings.ToUpper(hex.EncodeToString(blk.BlockID.Hash))).To(Equal(bnd.hash), "the boundary hashes are CometBFT's")
					Expect(uint64(blk.Block.Time.Unix())).To(And(BeNumerically(">=", times.Start), BeNumerically("<", times.End)))
				}
				for _, n := range []int64{int64(mn.Window.FirstBlock) - 1, int64(mn.Window.LastBlock) + 1} {
					hd, err := cmt.Header(ctx, &n)
					Expect(err).NotTo(HaveOccurred())
					t := uint64(hd.Header.Time.Unix())
					Expect(t < times.Start || t >= times.End).To(BeTrue(), "block %d (time %d) lies outside the stage", n, t)
				}

				want := cosmosExpected(target.VM, acts, times.Start, times.End, opAddr)
				Expect(len(want)).To(BeNumerically(">=", 3), "the users score")
				got := readBech32Scores(filepath.Join(outNode, policy.ScoreFileName))
				Expect(got).NotTo(HaveKey(opAddr), "the operator sent umin in the stage but is excluded")
				Expect(got).To(Equal(want))
				var total uint64
				for _, v := range want {
					total += v
				}
				Expect(mn.Merkle.Total).To(Equal(strconv.FormatUint(total, 10)))
				AddReportEntry("scores", string(a))
			}, SpecTimeout(3*time.Minute))

			It("pushes and finalizes the scores, and the agent's snapshot holds the manifest's root", func(ctx SpecContext) {
				m := pushAndSnapshot(ctx, env, stateDir, contract, outNode)

				// compute --compare finds the contract's stage the policy's.
				args := append([]string{"--contract", contract, "scores", "compute", "--compare", "--policy", policyFile,
					"--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID), "--out", filepath.Join(outRoot, "same")}, params...)
				out, code := env.RunVipctl(ctx, vipctl, stateDir, args...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("holds the policy's scores"))

				// And audit --policy recomputes the stage and finds the L1's snapshot.
				args = append([]string{"--contract", contract, "audit", "--policy", policyFile, "--stage", strconv.Itoa(stage), "--bridge-id", strconv.Itoa(bridgeID)}, params...)
				out, code = env.RunVipctl(ctx, vipctl, stateDir, args...)
				Expect(code).To(Equal(0), out)
				Expect(out).To(ContainSubstring("merkle root " + strings.TrimPrefix(m.Merkle.Root, "0x")))
				Expect(out).To(ContainSubstring("holds the policy's scores"))
				Expect(out).To(ContainSubstring("matches the L1 snapshot"))
			}, SpecTimeout(3*time.Minute))

			It("operates stage 3 by the policy once the L1 advances past it: computed, pushed and finalized; another pass sends nothing", func(ctx SpecContext) {
				// Stage 3 holds the activity the first spec made after stage 2's end.
				t3, err := l1node.NewReader(env.L1.URL(), env.L1.VIPAddress(), nil).StageTimes(ctx, stage+1)
				Expect(err).NotTo(HaveOccurred())
				want := cosmosExpected(target.VM, acts, t3.Start, t3.End, opAddr)
				Expect(len(want)).To(BeNumerically(">=", 2), "users acted in stage 3")
				By("waiting for the L1's stage 3 to end, then advancing the L1")
				time.Sleep(time.Until(time.Unix(int64(t3.End), 0)) + 300*time.Millisecond)
				// The rollup's first block past the end closes the stage's block range.
				Expect(env.NewBlock(ctx)).To(Succeed())
				Expect(env.L1.Advance(ctx)).To(Equal(uint64(stage + 2)))

				op := mustKey(env.OperatorSecret(), env.KeyType())
				on := operated{
					sent: func() uint64 {
						s, err := c.SignerOf(ctx, op)
						Expect(err).NotTo(HaveOccurred())
						return s.Sequence
					},
					readScores: readBech32Scores,
				}
				policyArgs := append([]string{"--policy", policyFile, "--bridge-id", strconv.Itoa(bridgeID)}, params...)
				got := operateByPolicy(ctx, env, on, stateDir, contract, outRoot, policyArgs, []int{stage + 1}, stage+2)
				Expect(got[stage+1]).To(Equal(want), "stage 3's scores are the formulas' of its activity")
				Expect(got[stage+1]).NotTo(HaveKey(opAddr))
			}, SpecTimeout(3*time.Minute))
		})
	}
})

func mustKey(secretHex string, kt vip.KeyType) keys.Signer {
	GinkgoHelper()
	a, err := keys.FromHex(secretHex)
	Expect(err).NotTo(HaveOccurred())
	k, err := keys.NewSoftware(a, kt, "operator")
	Expect(err).NotTo(HaveOccurred())
	return k
}

// buildArena compiles the demo arena module (fixtures/policies/move/arena) for its publisher
// with Initia's Move compiler, in a child vipctl (move-build), in a copy of the package and
// the framework it links against.
func buildArena(ctx context.Context, publisher movebcs.Address) []byte {
	GinkgoHelper()
	root := GinkgoT().TempDir()
	for _, dir := range []string{"fixtures/policies/move/arena", "contracts/move/framework"} {
		dst := filepath.Join(root, dir)
		Expect(os.MkdirAll(filepath.Dir(dst), 0o755)).To(Succeed())
		Expect(exec.CommandContext(ctx, "cp", "-r", filepath.Join("..", "..", dir), dst).Run()).To(Succeed())
	}
	pkg := filepath.Join(root, "fixtures/policies/move/arena")
	out, err := exec.CommandContext(ctx, vipctl, "move-build", pkg, "arena="+publisher.String()).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	code, err := os.ReadFile(filepath.Join(pkg, "build", "DemoArena", "bytecode_modules", "arena.mv"))
	Expect(err).NotTo(HaveOccurred())
	return code
}
