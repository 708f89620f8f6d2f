package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/vipharness/vipharness/deployer"
	"github.com/vipharness/vipharness/deployer/operation/guard"
	"github.com/vipharness/vipharness/deployer/operation/operate"
	"github.com/vipharness/vipharness/deployer/tasks"
)

// envSetting is one setting operate takes from its --env-file: the variable, the flag that
// wins over it, and the option it fills. Endpoint settings are followed while operate
// runs; the others name the operator (its VM, signer kind, contract) and are fixed at start.
type envSetting struct {
	key, flag string
	field     func(o *chainOptions) *string
	endpoint  bool
}

// envFileSettings are the settings an env file fills. Keys (MNEMONIC, PRIVATE_KEY, ...) are
// never read from it: signers come from the flags and the environment, opened once.
var envFileSettings = []envSetting{
	{"VM", "vm", func(o *chainOptions) *string { return &o.vm }, false},
	{"KEY_TYPE", "key-type", func(o *chainOptions) *string { return &o.keyType }, false},
	{"CONTRACT_ADDRESS", "contract", func(o *chainOptions) *string { return &o.contract }, false},
	{"JSON_RPC_URL", "rpc", func(o *chainOptions) *string { return &o.rpc }, true},
	{"COMET_RPC_URL", "comet-rpc", func(o *chainOptions) *string { return &o.cometRPC }, true},
	{"REST_URL", "rest", func(o *chainOptions) *string { return &o.rest }, true},
	{"GAS_PRICE", "gas-price", func(o *chainOptions) *string { return &o.gasPrice }, true},
	{"NETWORK", "network", func(o *chainOptions) *string { return &o.network }, true},
	{"L1_REST_URL", "l1-rest", func(o *chainOptions) *string { return &o.l1REST }, true},
	{"VIP_MODULE_ADDRESS", "vip-address", func(o *chainOptions) *string { return &o.vipAddr }, true},
}

// withEnvFile is a copy of o in which the env file's values fill the settings no flag
// gave: a flag wins over the file, the file over the environment, the environment over the
// default. A key the file holds empty is empty (the file is the whole description).
func (o *chainOptions) withEnvFile(vals map[string]string) *chainOptions {
	c := *o
	c.file = map[string]string{}
	for _, s := range envFileSettings {
		v, ok := vals[s.key]
		if !ok || o.changed(s.flag) {
			continue
		}
		*s.field(&c) = v
		c.file[s.key] = v
	}
	return &c
}

// settingChange is one setting that differs between two versions of the options.
type settingChange struct {
	key, from, to string
	endpoint      bool
}

// settingChanges lists the env-file settings whose values differ between a and b.
func settingChanges(a, b *chainOptions) []settingChange {
	var out []settingChange
	for _, s := range envFileSettings {
		if x, y := *s.field(a), *s.field(b); x != y {
			out = append(out, settingChange{s.key, x, y, s.endpoint})
		}
	}
	return out
}

// logValue is a setting's value as it may be logged: a URL without its user info's
// password and its query (where API keys go); other settings are not secret.
func logValue(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return v
	}
	if u.RawQuery != "" {
		u.RawQuery = "redacted"
	}
	return u.Redacted()
}

// changeAttrs are changes as log attributes ("KEY", "from -> to").
func changeAttrs(changes []settingChange) []any {
	var out []any
	for _, c := range changes {
		out = append(out, c.key, fmt.Sprintf("%s -> %s", orNone(logValue(c.from)), orNone(logValue(c.to))))
	}
	return out
}

// sameChain refuses a scorer on another chain than the one operate started on: another
// chain id, or one started again under it (another first block).
func sameChain(ctx context.Context, started tasks.Chain, s *deployer.Scorer) error {
	var other *tasks.OtherChainError
	if err := started.Same(ctx, s); !errors.As(err, &other) {
		return err
	}
	if !other.Restarted {
		return invalid(fmt.Errorf("the env file's endpoints reach chain %s, but operate started on chain %s: start an operator for that chain", other.Got.ID, started.ID))
	}
	return invalid(fmt.Errorf("the env file's endpoints reach another chain of id %s (first block %s; operate started on one whose first block is %s): the chain was started again; deploy again and start operate for it; nothing was sent",
		started.ID, other.Got.FirstBlock, started.FirstBlock))
}

// envFollower keeps operate's contract and L1 on the endpoints its --env-file names, read
// again before every pass. A file that cannot be read or parsed, or names settings that
// cannot be used, is logged once and the endpoints in use are kept; endpoints that do not
// answer fail the pass (retried with the next); endpoints that reach another chain or
// contract, and a change of a fixed setting, stop operate.
type envFollower struct {
	path   string
	sess   session
	logger *slog.Logger
	base   *chainOptions   // the command line's: what each version of the file fills
	cfg    deployer.Config // the signers and push settings, opened once
	chain  tasks.Chain     // the chain operate started on

	seen  string        // the file version last read (its digest and its error)
	want  *chainOptions // the settings the file last named well
	inUse *chainOptions // the settings of the open clients
	s     *deployer.Scorer
	close func()
	onUse func(*chainOptions) // told the settings in use when they change
}

// reconnect is the operator's Reconnect.
func (f *envFollower) reconnect(ctx context.Context) (operate.Contract, guard.L1, error) {
	if err := f.reread(); err != nil {
		return nil, nil, err
	}
	if len(settingChanges(f.inUse, f.want)) == 0 {
		return nil, nil, nil
	}
	return f.open(ctx)
}

// reread reads the file if it changed and takes a well-formed version's settings as wanted.
func (f *envFollower) reread() error {
	file, err := readEnvFile(f.path)
	version := file.version(err)
	if version == f.seen {
		return nil
	}
	f.seen = version
	if err != nil {
		f.logger.Warn("env file unusable; keeping the endpoints in use", "err", err)
		return nil
	}
	next := f.base.withEnvFile(file.vals)
	changes := settingChanges(f.want, next)
	for _, c := range changes {
		if !c.endpoint {
			return &operate.StopError{Err: invalid(fmt.Errorf("env file %s: %s changed (%s -> %s): it names another operator; start operate again for it",
				f.path, c.key, orNone(logValue(c.from)), orNone(logValue(c.to))))}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	if err := f.usable(next); err != nil {
		f.logger.Warn("env file names endpoints that cannot be used; keeping the endpoints in use", append([]any{"file", f.path, "err", err}, changeAttrs(changes)...)...)
		return nil
	}
	f.logger.Info("env file: endpoints changed", append([]any{"file", f.path}, changeAttrs(changes)...)...)
	f.want = next
	return nil
}

// usable checks what can be checked of settings without the network.
func (f *envFollower) usable(o *chainOptions) error {
	cfg := f.cfg
	if err := o.rollupEndpoints(&cfg); err != nil {
		return err
	}
	_, err := o.l1Reader()
	return err
}

// open dials the wanted endpoints; it replaces the clients in use only when they reach the
// same chain and contract.
func (f *envFollower) open(ctx context.Context) (operate.Contract, guard.L1, error) {
	o := f.want
	cfg := f.cfg
	if err := o.rollupEndpoints(&cfg); err != nil {
		return nil, nil, err
	}
	l1, err := o.l1Reader()
	if err != nil {
		return nil, nil, err
	}
	s, closeFn, err := o.openWriter(ctx, f.sess, cfg)
	if err != nil {
		if refusal(err) {
			return nil, nil, &operate.StopError{Err: err}
		}
		return nil, nil, fmt.Errorf("open the contract at the env file's endpoints: %w", err)
	}
	if err := sameChain(ctx, f.chain, s); err != nil {
		closeFn()
		return nil, nil, &operate.StopError{Err: err}
	}
	f.close()
	f.s, f.close, f.inUse = s, closeFn, o
	f.logger.Info("reopened the contract and the L1 at the env file's endpoints", "chain_id", s.ChainID(), "contract", s.Contract())
	if f.onUse != nil {
		f.onUse(o)
	}
	return s, l1, nil
}

// refusal reports whether err is vipctl's refusal (exit 2): nothing to retry.
func refusal(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == exitInvalid
}

// envFileHelp is --env-file's help.
func envFileHelp() string {
	keys := make([]string, 0, len(envFileSettings))
	for _, s := range envFileSettings {
		keys = append(keys, s.key)
	}
	return "read settings from this env file (KEY=VALUE lines, as localnet up writes): its " + strings.Join(keys, ", ") +
		" fill what no flag gave (a flag wins over the file, the file over the environment); the endpoints are read again before every pass and the contract reopened when they change; keys are never read from it"
}
