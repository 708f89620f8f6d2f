package router

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
	"github.com/vipharness/vipharness/localnet/embedded"
)

// Assets of fixtures/router/graph.json used by the tests.
const (
	evmChain   = "3370758106842963"
	evmNative  = "evm-native"
	l1Chain    = "initiation-2"
	ethOnL1    = "ibc/407EA0C82DB498E018FF454F628E9CA9FFE16F1C07BA49449F1CEA78D24D04B1"
	nobleChain = "noble-local"
	ethOnNoble = "ibc/043B7DD4D0F328665BC718E7FD800E661E949357AC5486E34CE9F12134243D3D"
	moveChain  = "minimove-1"
	ethOnMove  = "l2/88ac0c14a803e03942fecd6881f8f6f5aeffb090bf112011e0346c0b9d018859"
	initOnMove = "l2/7dbaaa41cdc0da107b6c6ecc76e7eab999279adf5b8fc421b277f8ab22dd6e76"
	escrowEVM  = "0x2611285e479cd83E673044833876029CD084d847"
)

func bech(prefix string, addr common.Address) string {
	s, err := bech32.ConvertAndEncode(prefix, addr.Bytes())
	if err != nil {
		panic(err)
	}
	return s
}

// recipient is a fixed destination account.
var recipient = common.HexToAddress("0x00000000000000000000000000000000000000a1")

// addressesFor are the addresses of a transfer from sender to recipient on every chain of
// the fixture graph.
func addressesFor(sender common.Address, dstChain string) map[string]string {
	m := map[string]string{
		evmChain:   sender.Hex(),
		l1Chain:    bech("init", sender),
		moveChain:  bech("init", sender),
		nobleChain: bech("noble", sender),
	}
	switch dstChain {
	case nobleChain:
		m[nobleChain] = bech("noble", recipient)
	case moveChain:
		m[moveChain] = bech("init", recipient)
	case l1Chain:
		m[l1Chain] = bech("init", recipient)
	}
	return m
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// memChain is an in-memory EVM chain: an api.EVMBackend that accepts signed transactions
// (each succeeds at once) and a TxSource that finds them. It stands in for a node where a
// test is about the service, not the chain.
type memChain struct {
	id     *big.Int
	signer types.Signer
	mu     sync.Mutex
	txs    map[common.Hash]ChainTx
	nonces map[common.Address]uint64
}

func newMemChain(id int64) *memChain {
	return &memChain{id: big.NewInt(id), signer: types.LatestSignerForChainID(big.NewInt(id)),
		txs: map[common.Hash]ChainTx{}, nonces: map[common.Address]uint64{}}
}

func (m *memChain) ChainID(context.Context) (*big.Int, error) { return m.id, nil }
func (m *memChain) PendingNonceAt(_ context.Context, a common.Address) (uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.nonces[a], nil
}
func (m *memChain) SuggestGasTipCap(context.Context) (*big.Int, error) { return big.NewInt(1), nil }
func (m *memChain) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	return &types.Header{BaseFee: big.NewInt(7)}, nil
}
func (m *memChain) EstimateGas(_ context.Context, c ethereum.CallMsg) (uint64, error) {
	return 21_000 + 16*uint64(len(c.Data)), nil
}
func (m *memChain) SendTransaction(_ context.Context, tx *types.Transaction) error {
	from, err := types.Sender(m.signer, tx)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tx.Nonce() != m.nonces[from] {
		return errors.New("nonce too low or too high")
	}
	m.nonces[from]++
	ct := ChainTx{Hash: tx.Hash().Hex(), From: from.Hex(), Value: tx.Value(), Data: tx.Data(), Success: true}
	if tx.To() != nil {
		ct.To = tx.To().Hex()
	}
	m.txs[tx.Hash()] = ct
	return nil
}
func (m *memChain) TransactionReceipt(_ context.Context, h common.Hash) (*types.Receipt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.txs[h]; !ok {
		return nil, ethereum.NotFound
	}
	return &types.Receipt{Status: types.ReceiptStatusSuccessful, TxHash: h}, nil
}
func (m *memChain) TxByHash(_ context.Context, hash string) (ChainTx, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	tx, ok := m.txs[common.HexToHash(hash)]
	return tx, ok, nil
}

func newKey(t testing.TB) (*ecdsa.PrivateKey, string) {
	t.Helper()
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k, hex.EncodeToString(crypto.FromECDSA(k))
}

// startRouter starts a stand-in closed at the end of the test.
func startRouter(t testing.TB, opts ...Option) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, opts...)
	if err != nil {
		t.Fatalf("start router: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func newClient(t testing.TB, s *Server, opts ...api.Option) *api.Client {
	t.Helper()
	base := []api.Option{api.WithPollBackoff(2*time.Millisecond, 20*time.Millisecond), api.WithHTTPClient(&http.Client{Timeout: 10 * time.Second})}
	c, err := api.NewClient(s.URL(), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The embedded EVM chain is started once per test binary, with funded keys handed to the
// tests that send on it, so nonces of tests do not mix.
var (
	evmOnce sync.Once
	evm     *embedded.GethRollup
	evmErr  error
	evmKeys []*ecdsa.PrivateKey
	evmMu   sync.Mutex
	evmNext int
)

const evmKeyCount = 12

func sharedEVM(t testing.TB) (*embedded.GethRollup, *ecdsa.PrivateKey) {
	t.Helper()
	evmOnce.Do(func() {
		var addrs []common.Address
		for range evmKeyCount {
			k, err := crypto.GenerateKey()
			if err != nil {
				evmErr = err
				return
			}
			evmKeys = append(evmKeys, k)
			addrs = append(addrs, crypto.PubkeyToAddress(k.PublicKey))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		evm, evmErr = embedded.StartGeth(ctx, embedded.WithFundedAddresses(addrs...))
	})
	if evmErr != nil {
		t.Fatalf("start embedded evm: %v", evmErr)
	}
	evmMu.Lock()
	defer evmMu.Unlock()
	// Keys are handed out in turn; with -count > 1 they come round again, which is safe
	// because the tests that send do not run in parallel and wait for their receipts.
	k := evmKeys[evmNext%len(evmKeys)]
	evmNext++
	return evm, k
}

func TestMain(m *testing.M) {
	code := m.Run()
	if evm != nil {
		_ = evm.Stop(context.Background())
	}
	os.Exit(code)
}

// evmSigner is a real EVM signer of key on the embedded chain.
func evmSigner(t testing.TB, r *embedded.GethRollup, key *ecdsa.PrivateKey, opts ...api.EVMSignerOption) *api.EVMSigner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := api.NewEVMSigner(ctx, r.Client(), hex.EncodeToString(crypto.FromECDSA(key)), append([]api.EVMSignerOption{api.WithReceiptPoll(5 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// memSignerKey is a real EVM signer of key on an in-memory chain.
func memSignerKey(t testing.TB, chain *memChain, key *ecdsa.PrivateKey, opts ...api.EVMSignerOption) *api.EVMSigner {
	t.Helper()
	s, err := api.NewEVMSigner(context.Background(), chain, hex.EncodeToString(crypto.FromECDSA(key)), append([]api.EVMSignerOption{api.WithReceiptPoll(time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// hookAccounts lets a signer read its accounts on the chains srv simulates (the hook chain).
func hookAccounts(srv *Server) api.EVMSignerOption {
	return api.WithHookAccounts(api.RESTAccounts(nil, map[string]string{l1Chain: srv.ChainRESTURL(l1Chain)}))
}

// Balance makes memChain a BalanceSource: every account holds 1000 + its nonce of the
// native coin; ERC20 denoms are not deployed here.
func (m *memChain) Balance(_ context.Context, address, denom string) (*big.Int, error) {
	if common.IsHexAddress(denom) {
		return nil, errors.New("no contract at " + denom)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return big.NewInt(1000 + int64(m.nonces[common.HexToAddress(address)])), nil
}
