package ledger_test

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/keys/ledger"
	standin "github.com/vipharness/vipharness/localnet/ledger"
)

const devMnemonic = "test test test test test test test test test test test junk"

var dev0 = common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")

func connect(t *testing.T, opts ...standin.Option) (*ledger.App, *standin.Server) {
	t.Helper()
	srv, err := standin.Start(devMnemonic, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	tr, err := ledger.DialSpeculos(context.Background(), srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	a := ledger.New(tr)
	t.Cleanup(func() { a.Close() })
	return a, srv
}

func softKey(t *testing.T, index uint32) *keys.Account {
	t.Helper()
	a, err := keys.FromMnemonic(devMnemonic, keys.EVMPath(index))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func testTx(nonce uint64, data []byte) *types.Transaction {
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	return types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(2124225178762456), Nonce: nonce, GasTipCap: big.NewInt(1),
		GasFeeCap: big.NewInt(2_000_000_000), Gas: 900_000, To: &to, Value: big.NewInt(0), Data: data})
}

func TestAddressAndVersion(t *testing.T) {
	a, _ := connect(t)
	ctx := context.Background()
	for i, want := range []common.Address{dev0, common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")} {
		pub, addr, err := a.Address(ctx, keys.EVMPath(uint32(i)))
		if err != nil {
			t.Fatal(err)
		}
		if addr != want || crypto.PubkeyToAddress(*pub) != want {
			t.Fatalf("index %d: address %s, want %s", i, addr.Hex(), want.Hex())
		}
	}
	v, err := a.Version(ctx)
	if err != nil || v != "1.13.0" {
		t.Fatalf("version %q, %v", v, err)
	}
}

// A transaction of several chunks signed on the device equals the software signature of the
// same key (both are deterministic RFC 6979 signatures), and the user saw what it does.
func TestSignTxMatchesSoftwareKey(t *testing.T) {
	a, srv := connect(t)
	data := bytes.Repeat([]byte{0xab}, 700) // path + payload take 4 chunks
	tx := testTx(7, data)
	signed, err := a.SignTx(context.Background(), keys.EVMPath(0), tx, tx.ChainId(), dev0)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(tx.ChainId())
	want, err := types.SignTx(tx, signer, softKey(t, 0).PrivateKey())
	if err != nil {
		t.Fatal(err)
	}
	if signed.Hash() != want.Hash() {
		t.Fatalf("device-signed tx %s, software-signed %s", signed.Hash(), want.Hash())
	}
	if from, _ := types.Sender(signer, signed); from != dev0 {
		t.Fatalf("sender %s", from.Hex())
	}
	log := srv.Confirmations()
	if len(log) != 1 || log[0].Kind != "transaction" || !log[0].Approved || log[0].Path != "m/44'/60'/0'/0/0" {
		t.Fatalf("confirmations %+v", log)
	}
	shown := strings.Join(log[0].Screens, "|")
	for _, s := range []string{"0x00000000000000000000000000000000000000AA", "chain id 2124225178762456", "Nonce: 7", "700 bytes of contract data"} {
		if !strings.Contains(shown, s) {
			t.Errorf("screens %q lack %q", shown, s)
		}
	}
	if st := srv.Stats(); st.APDUs != 4 || st.Signatures != 1 || st.Interleaved != 0 {
		t.Fatalf("stats %+v, want 4 APDUs and 1 signature", st)
	}
}

func TestSignPersonalMessage(t *testing.T) {
	a, srv := connect(t)
	msg := []byte(`{"account_number":"3","chain_id":"move-1","fee":{"amount":[],"gas":"200000"},"memo":"","msgs":[` + strings.Repeat(`{"type":"move/MsgExecute"},`, 20) + `],"sequence":"9"}`)
	sig, err := a.SignPersonal(context.Background(), keys.EVMPath(0), msg, dev0)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := crypto.Sign(accounts.TextHash(msg), softKey(t, 0).PrivateKey())
	if !bytes.Equal(sig, want) {
		t.Fatalf("signature %x, want %x", sig, want)
	}
	log := srv.Confirmations()
	if len(log) != 1 || log[0].Kind != "message" || !strings.Contains(strings.Join(log[0].Screens, " "), "account_number") {
		t.Fatalf("confirmations %+v", log)
	}
}

func TestDeviceStates(t *testing.T) {
	ctx := context.Background()
	tx := testTx(0, []byte{1, 2, 3})
	t.Run("user rejects, then approves", func(t *testing.T) {
		a, srv := connect(t)
		srv.RejectNext()
		_, err := a.SignTx(ctx, keys.EVMPath(0), tx, tx.ChainId(), dev0)
		if !ledger.Rejected(err) || !strings.Contains(err.Error(), "0x6985") {
			t.Fatalf("error %v, want a rejection", err)
		}
		if _, err := a.SignTx(ctx, keys.EVMPath(0), tx, tx.ChainId(), dev0); err != nil {
			t.Fatalf("after a rejection: %v", err)
		}
		if log := srv.Confirmations(); len(log) != 2 || log[0].Approved || !log[1].Approved {
			t.Fatalf("log %+v", log)
		}
	})
	t.Run("locked", func(t *testing.T) {
		a, srv := connect(t)
		srv.SetLocked(true)
		_, _, err := a.Address(ctx, keys.EVMPath(0))
		if !errors.Is(err, ledger.ErrLocked) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("another app open", func(t *testing.T) {
		a, srv := connect(t)
		srv.OpenApp("Bitcoin")
		_, err := a.SignPersonal(ctx, keys.EVMPath(0), []byte("hi"), dev0)
		if !errors.Is(err, ledger.ErrWrongApp) || !strings.Contains(err.Error(), "open") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("blind signing off", func(t *testing.T) {
		a, srv := connect(t, standin.WithBlindSigning(false))
		_, err := a.SignTx(ctx, keys.EVMPath(0), tx, tx.ChainId(), dev0)
		if !errors.Is(err, ledger.ErrBadData) || !strings.Contains(err.Error(), "Blind signing") {
			t.Fatalf("error %v", err)
		}
		if len(srv.Confirmations()) != 0 {
			t.Fatal("the user was asked to confirm data the app refused")
		}
	})
	t.Run("another account", func(t *testing.T) {
		a, _ := connect(t)
		_, err := a.SignTx(ctx, keys.EVMPath(1), tx, tx.ChainId(), dev0)
		if err == nil || !strings.Contains(err.Error(), "not from "+dev0.Hex()) {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("path too deep", func(t *testing.T) {
		a, srv := connect(t)
		_, _, err := a.Address(ctx, make([]uint32, 11))
		if err == nil || srv.Stats().APDUs != 0 {
			t.Fatalf("error %v, apdus %d", err, srv.Stats().APDUs)
		}
	})
}

// Many goroutines share one App, as the push loop's window does: the device sees one whole
// request at a time.
func TestOneRequestAtATime(t *testing.T) {
	a, srv := connect(t, standin.WithConfirmDelay(2*time.Millisecond))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tx := testTx(uint64(i), bytes.Repeat([]byte{byte(i)}, 400))
			_, err := a.SignTx(context.Background(), keys.EVMPath(0), tx, tx.ChainId(), dev0)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if st := srv.Stats(); st.MaxConcurrent != 1 || st.Interleaved != 0 || st.Signatures != 8 {
		t.Fatalf("stats %+v: want one exchange at a time and no interleaving", st)
	}
}

func TestContextCancelStopsTheExchange(t *testing.T) {
	a, _ := connect(t, standin.WithConfirmDelay(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := a.SignPersonal(ctx, keys.EVMPath(0), []byte("slow user"), dev0)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

// A device that goes away mid-request is an interrupted request, like a refusal: the
// command can say how to resume.
func TestLostConnectionIsAnInterruption(t *testing.T) {
	a, srv := connect(t, standin.WithConfirmDelay(200*time.Millisecond))
	go func() {
		time.Sleep(50 * time.Millisecond)
		srv.Close()
	}()
	_, err := a.SignPersonal(context.Background(), keys.EVMPath(0), []byte("unplugged"), dev0)
	if !errors.Is(err, ledger.ErrTransport) || !ledger.Interrupted(err) || ledger.Rejected(err) {
		t.Fatalf("error %v: want a transport failure, an interruption, not a refusal", err)
	}
}
