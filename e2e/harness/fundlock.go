package harness

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/vipharness/vipharness/deployer/keys"
)

// lockFunder holds an exclusive lock, shared by every process on this machine, on the account
// that funds others: `go test` runs suites' packages in parallel, and on an external chain they
// all fund from the one key the environment gives, so each must send and see its transfer
// included before the next reads the account's sequence or nonce.
func lockFunder(ctx context.Context, account string) (unlock func(), err error) {
	path := filepath.Join(os.TempDir(), "vipharness-funder-"+strings.ToLower(account)+".lock")
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock funding account %s: %w", account, err)
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil && samePath(f, path):
			// The holder removes the file before it unlocks, so that runs leave none behind.
			return func() { _ = os.Remove(path); _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); _ = f.Close() }, nil
		case err == nil:
			// Locked a file its last holder removed meanwhile: lock the path's new file.
			f.Close()
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			f.Close()
			return nil, fmt.Errorf("lock funding account %s: %w", account, err)
		}
		f.Close()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock funding account %s: %w", account, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// samePath reports whether the open file f is still the file at path.
func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// fund sends the funded operator's coins to a signer's account, enough for gas, under the
// funder's lock (localnet.Chain.Fund: one transfer path for every VM).
func (e *Env) fund(ctx context.Context, to keys.Signer, gas uint64) error {
	from, err := e.signer(e.operator)
	if err != nil {
		return err
	}
	fromAddr, err := e.Chain.Address(from)
	if err != nil {
		return err
	}
	toAddr, err := e.Chain.Address(to)
	if err != nil {
		return err
	}
	unlock, err := lockFunder(ctx, fromAddr)
	if err != nil {
		return err
	}
	defer unlock()
	return e.Chain.Fund(ctx, from, toAddr, gas)
}

// signer is a secret as a signer of the rollup's key type.
func (e *Env) signer(secret []byte) (keys.Signer, error) {
	return keys.NewSoftware(mustAccount(secret), e.KeyType(), "funded key")
}

// mustAccount wraps a 32-byte secret the harness made or a rollup funded.
func mustAccount(secret []byte) *keys.Account {
	a, err := keys.FromHex(hex.EncodeToString(secret))
	if err != nil {
		panic(fmt.Sprintf("harness key: %v", err))
	}
	return a
}
