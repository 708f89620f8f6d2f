package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/vip"
)

// flagBounds are the ranges of the numeric flags, by name (a name means one thing in every
// command that has it). Flags not listed take any value their type parses.
var flagBounds = map[string]bound{
	"chunk-size":       intBound(0, math.MaxInt32, "0 derives it from the chain's limits"),
	"window":           intBound(1, deployer.MaxWindow, ""),
	"first-push":       intBound(1, math.MaxInt32, ""),
	"generate":         intBound(0, math.MaxInt32, ""),
	"l1-stage":         intBound(1, math.MaxInt64, "stages start at 1"),
	"log-span":         intBound(1, math.MaxInt64, ""),
	"account":          intBound(0, math.MaxInt32, "a non-hardened BIP32 index"),
	"every":            durationBound(time.Millisecond, ""),
	"poll":             durationBound(time.Millisecond, ""),
	"max-backoff":      durationBound(time.Millisecond, ""),
	"source-timeout":   durationBound(time.Millisecond, ""),
	"l1-advance-every": durationBound(0, "0: never"),
	"confirm-delay":    durationBound(0, ""),
}

// bound checks one flag's value as its flag set holds it.
type bound func(v pflag.Value) error

func intBound(lo, hi int64, note string) bound {
	return func(v pflag.Value) error {
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil || n < lo || n > hi {
			if hi == math.MaxInt32 || hi == math.MaxInt64 {
				return withNote(fmt.Errorf("%s is out of range: want at least %d", v.String(), lo), note)
			}
			return withNote(fmt.Errorf("%s is out of range: want %d to %d", v.String(), lo, hi), note)
		}
		return nil
	}
}

func durationBound(lo time.Duration, note string) bound {
	return func(v pflag.Value) error {
		d, err := time.ParseDuration(v.String())
		if err != nil || d < lo {
			if lo == 0 {
				return withNote(fmt.Errorf("%s is negative", v.String()), note)
			}
			return withNote(fmt.Errorf("%s is too short: want at least %s", v.String(), lo), note)
		}
		return nil
	}
}

func withNote(err error, note string) error {
	if note == "" {
		return err
	}
	return fmt.Errorf("%w (%s)", err, note)
}

// checkFlags refuses a numeric flag out of its range before the command does anything,
// naming the flag; it checks defaults too, which are in range.
func checkFlags(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		if b, ok := flagBounds[f.Name]; ok {
			if err := b(f.Value); err != nil {
				errs = append(errs, fmt.Errorf("--%s %w", f.Name, err))
			}
		}
	})
	if len(errs) > 0 {
		return invalid(errors.Join(errs...))
	}
	return nil
}

// writer opens the Scorer of a command that sends txs to an existing contract, and proves
// first that the address holds a scoring contract its operator may write: code that speaks
// the official interface, and an empty update of its open stage, simulated from the
// operator. A plain account, a chain reset under a remembered address, or an operator not on
// the contract's allow list is refused with nothing sent.
func (o *chainOptions) writer(ctx context.Context, sess session, r scorerRequest) (*deployer.Scorer, func(), error) {
	cfg, err := o.scorerConfig(ctx, sess, r)
	if err != nil {
		return nil, nil, err
	}
	return o.openWriter(ctx, sess, cfg)
}

// openWriter is writer over a config made already (operate reopens its contract with the
// signers it opened once).
func (o *chainOptions) openWriter(ctx context.Context, sess session, cfg deployer.Config) (*deployer.Scorer, func(), error) {
	s, closeFn, err := o.openScorer(ctx, sess, cfg, true)
	if err != nil {
		return nil, nil, err
	}
	if err := checkContract(ctx, s.Contract(), s); err != nil {
		closeFn()
		return nil, nil, err
	}
	return s, closeFn, nil
}

// reader opens the Scorer of a command that only reads an existing contract, and proves
// first that the address holds code that speaks the official interface: a plain account or
// another contract is refused in the words writer uses (exit 2).
func (o *chainOptions) reader(ctx context.Context, sess session, r scorerRequest) (*deployer.Scorer, func(), error) {
	r.contract = true
	s, closeFn, err := o.scorer(ctx, sess, r)
	if err != nil {
		return nil, nil, err
	}
	if s.Contract() == "" {
		return s, closeFn, nil // nothing deployed: the read itself names it (ErrNoContract)
	}
	if err := checkContract(ctx, s.Contract(), readOnly{s}); err != nil {
		closeFn()
		return nil, nil, err
	}
	return s, closeFn, nil
}

// readOnly checks a Scorer's interface without simulating a write.
type readOnly struct{ s *deployer.Scorer }

func (r readOnly) CheckInterface(ctx context.Context) (string, error) { return r.s.CheckReadable(ctx) }

// contractChecker is a Scorer as checkContract sees it.
type contractChecker interface {
	CheckInterface(ctx context.Context) (string, error)
}

// checkContract runs the interface check of s (the contract at addr): a contract that does
// not speak the interface is bad input (exit 2), one that refuses the operator is refused
// as the contract refused (exit 3), and a chain that could not be asked is neither.
func checkContract(ctx context.Context, addr string, s contractChecker) error {
	_, err := s.CheckInterface(ctx)
	switch {
	case err == nil:
		return nil
	case unreachable(ctx, err):
		return fmt.Errorf("check the contract %s: %w", addr, err)
	case errors.Is(err, vip.ErrCannotWrite), errors.Is(err, vip.ErrNoSigner):
		return classify(fmt.Errorf("%w; nothing was sent", err))
	}
	cause := err
	if ce := (*vip.CheckError)(nil); errors.As(err, &ce) {
		cause = ce.Err
	}
	return invalid(fmt.Errorf("contract %s is not a scoring contract (--contract, or the one deployed from this state dir): %w; nothing was sent", addr, cause))
}

// unreachable tells a failed conversation with the node (transport, cancel) from an answer.
func unreachable(ctx context.Context, err error) bool {
	var ue *url.Error
	var ne net.Error
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.As(err, &ue) || errors.As(err, &ne)
}
