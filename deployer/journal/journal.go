// Package journal is the write-ahead record of a score push (and of a deploy, DeployPath,
// each deploy one chunk): every planned chunk, the signed transaction of each chunk before
// it is broadcast, and each chunk's final result.
// A re-run folds the record, reconciles open chunks with the chain by tx hash, and so
// resumes without sending any chunk twice.
//
// One journal is one append-only JSON-lines file per (chain, contract, stage, input); every
// record that announces an action (a signed tx about to be broadcast) is fsynced, with
// everything written before it, before that action: the plan, and the txs of a window
// signed together, share one sync (group commit). Outcome records (confirmed, failed,
// dropped) ride along with the next sync or Close: losing them to a crash loses nothing,
// since a re-run reads the same outcomes from the chain by tx hash.
package journal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Op is the kind of a record.
type Op string

const (
	OpBegin     Op = "begin"     // the push and its plan
	OpSigned    Op = "signed"    // a chunk's tx is signed; it may have been broadcast
	OpConfirmed Op = "confirmed" // the chunk's tx is on chain and succeeded
	OpFailed    Op = "failed"    // the chunk's tx is on chain and failed
	OpDropped   Op = "dropped"   // the signed tx can never land (its sequence went to another tx)
)

// OrderCanonical marks the plan of a push that cut the score set in its canonical (address)
// order, keyed by scores.Set's Fingerprint. A plan without it is older: it cut the set in
// the order of the input and is keyed by scores.Fingerprint.
const OrderCanonical = "canonical"

// Record is one line of a journal. Raw holds a signed transaction, which is public once
// broadcast; no secret is ever written.
type Record struct {
	Op        Op        `json:"op"`
	Time      time.Time `json:"time"`
	Chunk     int       `json:"chunk"`
	Stage     uint64    `json:"stage,omitempty"`
	Input     string    `json:"input,omitempty"`      // fingerprint of the validated score set
	Order     string    `json:"order,omitempty"`      // how the set was cut into chunks: OrderCanonical, or "" (input order)
	Chunks    int       `json:"chunks,omitempty"`     // number of chunks planned
	ChunkSize int       `json:"chunk_size,omitempty"` // entries per chunk
	Sequence  uint64    `json:"sequence,omitempty"`   // nonce or account sequence of the tx
	Hash      string    `json:"hash,omitempty"`
	Raw       string    `json:"raw,omitempty"` // hex of the signed tx bytes
	GasUsed   uint64    `json:"gas_used,omitempty"`
	Height    uint64    `json:"height,omitempty"`
	Error     string    `json:"error,omitempty"`
	// Contract is the address a deploy tx creates (see DeployPath): on its signed record
	// when the VM can tell before broadcast, on its confirmed record always.
	Contract string `json:"contract,omitempty"`
}

// ChunkState is the folded state of one chunk.
type ChunkState struct {
	Index     int
	Confirmed bool
	Failed    string // the chain's error, when the tx failed
	// Attempts are the signed txs of an unconfirmed chunk that are not known to be dropped,
	// oldest first (a confirmed chunk keeps none: it is never sent again).
	Attempts []Record
	GasUsed  uint64
	Hash     string // the confirmed tx
	Contract string // the contract a confirmed deploy tx created
	Height   uint64 // the block of the confirmed tx
}

// Journal is an open journal file.
type Journal struct {
	path  string
	mu    sync.Mutex
	f     *os.File
	begin *Record
	state map[int]*ChunkState
	syncs int
	// created is a journal file this Open made, whose folder entry is not yet synced.
	created bool
	dirty   bool // written since the last sync
}

// Key names the push a journal belongs to.
type Key struct {
	ChainID  string
	Contract string
	Stage    uint64
	Input    string // fingerprint of the score set
	// Attempt numbers the pushes of the same set to the same stage: a set pushed again
	// after the stage moved away from it is a new push with a journal of its own. 0 and 1
	// are the first.
	Attempt int
}

// Path is where the journal of k lives below dir.
func (k Key) Path(dir string) string {
	input := k.Input
	if len(input) > 16 {
		input = input[:16]
	}
	name := fmt.Sprintf("stage-%d-%s.jsonl", k.Stage, input)
	if k.Attempt > 1 {
		name = fmt.Sprintf("stage-%d-%s-%d.jsonl", k.Stage, input, k.Attempt)
	}
	return filepath.Join(dir, sanitize(k.ChainID), sanitize(strings.ToLower(k.Contract)), name)
}

// DeployPath is where the deploy journal of deployer on chain lives below dir. It is the
// same record format as a push's: each deploy of this deployer is one chunk (0, 1, ...),
// its signed tx journaled before broadcast with the contract address it creates, so that
// a re-run finishes a sent deploy instead of sending another.
func DeployPath(dir, chain, deployer string) string {
	return filepath.Join(dir, sanitize(chain), "_deploy", sanitize(strings.ToLower(deployer))+".jsonl")
}

func sanitize(s string) string {
	if s == "" || strings.Trim(s, ".") == "" {
		return "_" + s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}

// Open opens (or creates) the journal at path and folds what it holds. A torn last line,
// left by a crash in the middle of a write, is dropped: its action never happened, because
// every action waits for its record to be synced.
func Open(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create journal dir: %w", err)
	}
	j := &Journal{path: path, state: map[int]*ChunkState{}}
	valid, err := j.fold(path)
	if err != nil {
		return nil, err
	}
	if valid >= 0 {
		if err := os.Truncate(path, valid); err != nil {
			return nil, fmt.Errorf("drop torn journal tail: %w", err)
		}
	}
	j.f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	return j, nil
}

// fold applies the records of the file at path line by line, so a large journal is never
// held whole in memory. It returns the length of the valid prefix when a torn last line
// follows it, else -1. A file not there yet is a new journal (created).
func (j *Journal) fold(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		j.created = true
		return -1, nil
	}
	if err != nil {
		return -1, fmt.Errorf("read journal %s: %w", path, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var valid int64
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(text) == 0 {
				return -1, nil
			}
			// The last line has no newline: it was being written when the run stopped.
			return valid, nil
		}
		if err != nil {
			return -1, fmt.Errorf("read journal %s: %w", path, err)
		}
		var r Record
		if err := json.Unmarshal(text, &r); err != nil {
			if _, perr := br.Peek(1); errors.Is(perr, io.EOF) { // the torn tail
				return valid, nil
			}
			return -1, fmt.Errorf("journal %s line %d: %w", path, line, err)
		}
		j.apply(r)
		valid += int64(len(text))
	}
}

func (j *Journal) chunk(i int) *ChunkState {
	c, ok := j.state[i]
	if !ok {
		c = &ChunkState{Index: i}
		j.state[i] = c
	}
	return c
}

func (j *Journal) apply(r Record) {
	switch r.Op {
	case OpBegin:
		if j.begin == nil {
			rc := r
			j.begin = &rc
		}
	case OpSigned:
		c := j.chunk(r.Chunk)
		c.Attempts = append(c.Attempts, r)
	case OpConfirmed:
		c := j.chunk(r.Chunk)
		// A confirmed chunk is never sent again: its signed txs need not stay in memory.
		c.Confirmed, c.Hash, c.GasUsed, c.Failed, c.Attempts = true, r.Hash, r.GasUsed, "", nil
		c.Contract, c.Height = r.Contract, r.Height
	case OpFailed:
		c := j.chunk(r.Chunk)
		c.Failed = r.Error
		c.Attempts = dropAttempt(c.Attempts, r.Hash)
	case OpDropped:
		c := j.chunk(r.Chunk)
		c.Attempts = dropAttempt(c.Attempts, r.Hash)
	}
}

func dropAttempt(as []Record, hash string) []Record {
	out := as[:0]
	for _, a := range as {
		if a.Hash != hash {
			out = append(out, a)
		}
	}
	return out
}

// announces reports whether a record of op announces an action (a signed tx about to be
// broadcast), and so must be on disk, with every record before it, before Append returns.
// The begin record (the plan) announces nothing by itself: no action follows it before the
// first signed record, whose sync carries it.
func announces(op Op) bool { return op == OpSigned }

// Append writes rs in one write; when one of them announces an action (a signed tx), they
// are synced to disk, with every record before them, before Append returns: one sync for
// the txs of a whole window (group commit).
func (j *Journal) Append(rs ...Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	var buf []byte
	mustSync := false
	for i := range rs {
		if rs[i].Time.IsZero() {
			rs[i].Time = time.Now().UTC()
		}
		b, err := json.Marshal(rs[i])
		if err != nil {
			return fmt.Errorf("encode journal record: %w", err)
		}
		buf = append(append(buf, b...), '\n')
		mustSync = mustSync || announces(rs[i].Op)
	}
	if _, err := j.f.Write(buf); err != nil {
		return fmt.Errorf("write journal %s: %w", j.path, err)
	}
	j.dirty = true
	if mustSync {
		if err := j.sync(); err != nil {
			return err
		}
	}
	for _, r := range rs {
		j.apply(r)
	}
	return nil
}

func (j *Journal) sync() error {
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync journal %s: %w", j.path, err)
	}
	j.syncs++
	j.dirty = false
	if j.created {
		// A synced file whose directory entry is not is lost with it: the first sync of a
		// new journal syncs its folder too.
		if err := SyncDir(filepath.Dir(j.path)); err != nil {
			return fmt.Errorf("sync journal folder of %s: %w", j.path, err)
		}
		j.syncs++
		j.created = false
	}
	return nil
}

// SyncDir syncs a folder, so that a file created, renamed or removed in it stays so after
// a crash (syncing the file alone does not make its folder entry durable).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// WriteFileDurably writes path through a temporary file that is synced, then renamed over
// it, then syncs the folder: a reader finds the old file or the whole new one, never a part.
// Both files are made with perm (less the umask); a stale temporary file is replaced, not
// reused, so a secret never lands in a file made with wider permissions.
func WriteFileDurably(path string, perm os.FileMode, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if err := errors.Join(write(f), f.Sync(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// Finished reports whether the journal at path exists and confirms every chunk of its plan.
// It only reads.
func Finished(path string) (exists, finished bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, false, nil
	}
	j := &Journal{path: path, state: map[int]*ChunkState{}}
	if _, err := j.fold(path); err != nil {
		return true, false, err
	}
	if j.begin == nil {
		return true, false, nil
	}
	for i := range j.begin.Chunks {
		if c, ok := j.state[i]; !ok || !c.Confirmed {
			return true, false, nil
		}
	}
	return true, true, nil
}

// Syncs is how many times the file (or, once, its new folder entry) was synced to disk
// since Open.
func (j *Journal) Syncs() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncs
}

// Begin returns the begin record, if the journal has one.
func (j *Journal) Begin() (Record, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.begin == nil {
		return Record{}, false
	}
	return *j.begin, true
}

// Chunk returns the folded state of chunk i.
func (j *Journal) Chunk(i int) ChunkState {
	j.mu.Lock()
	defer j.mu.Unlock()
	c, ok := j.state[i]
	if !ok {
		return ChunkState{Index: i}
	}
	cp := *c
	cp.Attempts = append([]Record(nil), c.Attempts...)
	return cp
}

// Last is the highest chunk index any record names, or -1 when there is none.
func (j *Journal) Last() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	last := -1
	for i := range j.state {
		last = max(last, i)
	}
	return last
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.path }

// Close syncs what was written since the last sync, and closes the file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	var err error
	if j.dirty {
		// The outcomes written since the last sync: a re-run could read them back from the
		// chain, but not once the chain has pruned those txs.
		err = j.sync()
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	return err
}

// DefaultDir is where journals are kept when the caller names no folder: vipharness/journal
// under the user's state directory ($XDG_STATE_HOME, else ~/.local/state). It is absolute on
// purpose: a re-run must find the journal of the run it resumes whatever directory it starts
// in. It fails only when neither variable nor a home directory is known.
func DefaultDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) { // the XDG spec ignores a relative value
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no journal folder: name one (Config.Push.JournalDir), or set XDG_STATE_HOME or HOME: %w", err)
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "vipharness", "journal"), nil
}
