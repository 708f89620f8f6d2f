package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/vipharness/vipharness/deployer/cosmostx"
)

// lockFunder holds an exclusive lock, shared by every process on this machine, on the account
// that funds others: `go test` runs suites' packages in parallel, and on an external chain they
// all fund from the one key the environment gives, so each must send and see its transfer
// included before the next reads the account's sequence or nonce.
func lockFunder(ctx context.Context, account string) (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), "vipharness-funder-"+strings.ToLower(account)+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock funding account %s: %w", account, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock funding account %s: %w", account, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock funding account %s: %w", account, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// fundCosmos sends amount from the funder to an account, under the funder's lock, and sends
// again at a fresh sequence when the node reports a sequence mismatch: the key may also be
// in use by something other than these suites.
func (e *Env) fundCosmos(ctx context.Context, funder []byte, to string, gas uint64) error {
	key, err := e.cosmosKey(funder)
	if err != nil {
		return err
	}
	from := e.chain.Address(key.PubKey())
	unlock, err := lockFunder(ctx, from)
	if err != nil {
		return err
	}
	defer unlock()
	for attempt := 1; ; attempt++ {
		s, err := e.chain.Signer(ctx, key)
		if err != nil {
			return fmt.Errorf("funding account %s: %w", from, err)
		}
		err = e.chain.Fund(ctx, s, to, e.chain.FeeFunds(gas))
		var txErr *cosmostx.TxError
		if err == nil || attempt == 5 || !errors.As(err, &txErr) || txErr.Codespace != "sdk" || txErr.Code != 32 {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}
