// Package memdb is an in-memory cosmos-db database whose iterators read a snapshot.
//
// cosmos-db's MemDB holds its read lock for as long as an iterator over more than a few
// dozen keys stays open. A Move view iterating a large table keeps one open while it reads
// other keys; a block's commit that arrives between then waits for the write lock, and from
// that moment every new read waits behind the commit: the view, the commit and every later
// query stop for good. Here an iterator takes a copy-on-write clone of the tree (constant
// time) and holds no lock, so reads, writes and iterators never wait on one another for
// longer than one operation. Initia's nodes keep their state in LevelDB or Pebble, whose
// iterators read snapshots too.
package memdb

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"

	dbm "github.com/cosmos/cosmos-db"
	"github.com/google/btree"
)

var (
	errKeyEmpty        = errors.New("key cannot be empty")
	errValueNil        = errors.New("value cannot be nil")
	errBatchClosed     = errors.New("batch has been written or closed")
	errInvalidIterator = errors.New("iterator is invalid")
)

type item struct{ key, value []byte }

func less(a, b item) bool { return bytes.Compare(a.key, b.key) < 0 }

// degree is the B-tree's degree (cosmos-db's MemDB uses the same).
const degree = 32

// DB is an in-memory dbm.DB. Its zero value is not usable; use New.
type DB struct {
	mu   sync.RWMutex
	tree *btree.BTreeG[item]
}

var _ dbm.DB = (*DB)(nil)

// New is an empty database.
func New() *DB { return &DB{tree: btree.NewG(degree, less)} }

// Get returns key's value, nil when there is none.
func (db *DB) Get(key []byte) ([]byte, error) {
	if len(key) == 0 {
		return nil, errKeyEmpty
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	if it, ok := db.tree.Get(item{key: key}); ok {
		return it.value, nil
	}
	return nil, nil
}

// Has reports whether key has a value.
func (db *DB) Has(key []byte) (bool, error) {
	if len(key) == 0 {
		return false, errKeyEmpty
	}
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.tree.Has(item{key: key}), nil
}

// Set sets key's value (both copied).
func (db *DB) Set(key, value []byte) error {
	if err := checkSet(key, value); err != nil {
		return err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	db.set(key, value)
	return nil
}

// SetSync is Set: there is nothing to sync.
func (db *DB) SetSync(key, value []byte) error { return db.Set(key, value) }

// Delete removes key's value, if any.
func (db *DB) Delete(key []byte) error {
	if len(key) == 0 {
		return errKeyEmpty
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	db.tree.Delete(item{key: key})
	return nil
}

// DeleteSync is Delete.
func (db *DB) DeleteSync(key []byte) error { return db.Delete(key) }

func (db *DB) set(key, value []byte) {
	db.tree.ReplaceOrInsert(item{key: bytes.Clone(key), value: append([]byte{}, value...)})
}

func checkSet(key, value []byte) error {
	if len(key) == 0 {
		return errKeyEmpty
	}
	if value == nil {
		return errValueNil
	}
	return nil
}

// Iterator iterates [start, end) in ascending order (nil: unbounded) over the database as
// it is now; later writes are not seen.
func (db *DB) Iterator(start, end []byte) (dbm.Iterator, error) {
	return db.iterator(start, end, false)
}

// ReverseIterator iterates [start, end) in descending order over the database as it is now.
func (db *DB) ReverseIterator(start, end []byte) (dbm.Iterator, error) {
	return db.iterator(start, end, true)
}

func (db *DB) iterator(start, end []byte, reverse bool) (dbm.Iterator, error) {
	if (start != nil && len(start) == 0) || (end != nil && len(end) == 0) {
		return nil, errKeyEmpty
	}
	// Clone marks the tree copy-on-write, a write to the tree: it takes the write lock,
	// for a constant time.
	db.mu.Lock()
	snap := db.tree.Clone()
	db.mu.Unlock()
	it := &iterator{snap: snap, start: start, end: end, reverse: reverse}
	it.fill()
	return it, nil
}

// page is how many items an iterator reads from its snapshot at a time.
const page = 64

// iterator walks a snapshot a page at a time. It keeps no goroutine or coroutine: an
// iterator is made and closed on either side of the MoveVM's cgo callbacks, and a Go
// coroutine must end on the OS thread state it began with.
type iterator struct {
	snap       *btree.BTreeG[item]
	start, end []byte
	reverse    bool
	buf        []item // the page, buf[0] the current item
	last       []byte // the last key read into a page; nil before the first
	done       bool   // the snapshot has no more in range beyond buf
}

// fill reads the next page after last.
func (it *iterator) fill() {
	it.buf = it.buf[:0]
	if it.done {
		return
	}
	after := it.last
	visit := func(x item) bool {
		if after != nil && bytes.Equal(x.key, after) {
			return true
		}
		if !it.reverse && it.end != nil && bytes.Compare(x.key, it.end) >= 0 {
			return false
		}
		if it.reverse && (it.end != nil && bytes.Equal(x.key, it.end)) {
			return true
		}
		if it.reverse && it.start != nil && bytes.Compare(x.key, it.start) < 0 {
			return false
		}
		it.buf = append(it.buf, x)
		return len(it.buf) < page
	}
	switch {
	case !it.reverse && after != nil:
		it.snap.AscendGreaterOrEqual(item{key: after}, visit)
	case !it.reverse && it.start != nil:
		it.snap.AscendGreaterOrEqual(item{key: it.start}, visit)
	case !it.reverse:
		it.snap.Ascend(visit)
	case after != nil:
		it.snap.DescendLessOrEqual(item{key: after}, visit)
	case it.end != nil:
		it.snap.DescendLessOrEqual(item{key: it.end}, visit)
	default:
		it.snap.Descend(visit)
	}
	if len(it.buf) < page {
		it.done = true
	}
	if len(it.buf) > 0 {
		it.last = it.buf[len(it.buf)-1].key
	}
}

func (it *iterator) Domain() ([]byte, []byte) { return it.start, it.end }
func (it *iterator) Valid() bool              { return len(it.buf) > 0 }
func (it *iterator) Error() error             { return nil }

// Next moves to the next item; it panics past the end, as cosmos-db's iterators do.
func (it *iterator) Next() {
	it.mustBeValid()
	if it.buf = it.buf[1:]; len(it.buf) == 0 {
		it.fill()
	}
}

func (it *iterator) Key() []byte {
	it.mustBeValid()
	return it.buf[0].key
}

func (it *iterator) Value() []byte {
	it.mustBeValid()
	return it.buf[0].value
}

func (it *iterator) mustBeValid() {
	if len(it.buf) == 0 {
		panic(errInvalidIterator)
	}
}

// Close ends the walk.
func (it *iterator) Close() error {
	it.buf, it.snap, it.done = nil, nil, true
	return nil
}

// Close does nothing: the database lives as long as it is referenced.
func (db *DB) Close() error { return nil }

// Print writes every key and value to stdout, as cosmos-db's MemDB does.
func (db *DB) Print() error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	db.tree.Ascend(func(it item) bool {
		fmt.Printf("[%X]:\t[%X]\n", it.key, it.value)
		return true
	})
	return nil
}

// Stats names the backend and its size.
func (db *DB) Stats() map[string]string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return map[string]string{"database.type": "vipharness memdb", "database.size": strconv.Itoa(db.tree.Len())}
}

// NewBatch is an empty batch.
func (db *DB) NewBatch() dbm.Batch { return &batch{db: db} }

// NewBatchWithSize is an empty batch with room for size operations.
func (db *DB) NewBatchWithSize(size int) dbm.Batch {
	return &batch{db: db, ops: make([]op, 0, size)}
}

type op struct {
	del        bool
	key, value []byte
}

// batch applies its operations at once, under one write lock.
type batch struct {
	db     *DB
	ops    []op
	size   int
	closed bool
}

func (b *batch) Set(key, value []byte) error {
	if err := checkSet(key, value); err != nil {
		return err
	}
	if b.closed {
		return errBatchClosed
	}
	b.ops = append(b.ops, op{key: bytes.Clone(key), value: append([]byte{}, value...)})
	b.size += len(key) + len(value)
	return nil
}

func (b *batch) Delete(key []byte) error {
	if len(key) == 0 {
		return errKeyEmpty
	}
	if b.closed {
		return errBatchClosed
	}
	b.ops = append(b.ops, op{del: true, key: bytes.Clone(key)})
	b.size += len(key)
	return nil
}

func (b *batch) Write() error {
	if b.closed {
		return errBatchClosed
	}
	b.db.mu.Lock()
	for _, o := range b.ops {
		if o.del {
			b.db.tree.Delete(item{key: o.key})
		} else {
			b.db.tree.ReplaceOrInsert(item{key: o.key, value: o.value})
		}
	}
	b.db.mu.Unlock()
	return b.Close()
}

func (b *batch) WriteSync() error { return b.Write() }

func (b *batch) Close() error {
	b.ops, b.closed = nil, true
	return nil
}

func (b *batch) GetByteSize() (int, error) {
	if b.closed {
		return 0, errBatchClosed
	}
	return b.size, nil
}
