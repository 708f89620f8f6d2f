package memdb

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	dbm "github.com/cosmos/cosmos-db"
)

// An iterator left open (a Move view walking a large table) blocks neither a write (a
// block's commit) nor the reads after it: with cosmos-db's MemDB the read below waits for
// good.
func TestAnOpenIteratorBlocksNoWriteAndNoRead(t *testing.T) {
	db := New()
	for i := range 500 {
		mustSet(t, db, fmt.Sprintf("k%04d", i), "v")
	}
	it, err := db.Iterator(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	it.Next()
	done := make(chan error, 1)
	go func() {
		if err := db.Set([]byte("k0001"), []byte("new")); err != nil {
			done <- err
			return
		}
		v, err := db.Get([]byte("k0001"))
		if err == nil && string(v) != "new" {
			err = fmt.Errorf("read %q after the write", v)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write and a read waited on an open iterator")
	}
	// The iterator still walks the database as it was when it was made.
	if string(it.Key()) != "k0001" || string(it.Value()) != "v" {
		t.Fatalf("iterator at %s=%s, want k0001=v (the snapshot)", it.Key(), it.Value())
	}
	mustSet(t, db, "k9999", "late")
	n := 1
	for it.Next(); it.Valid(); it.Next() {
		n++
	}
	if n != 499 {
		t.Fatalf("walked %d keys from k0001, want 499 (none written after the iterator was made)", n)
	}
}

// Every range, both directions, against cosmos-db's MemDB as the reference.
func TestIteratorsMatchCosmosMemDB(t *testing.T) {
	ours, ref := New(), dbm.NewMemDB()
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		k, v := []byte(fmt.Sprintf("%03d", r.IntN(200))), []byte(fmt.Sprint(r.IntN(1000)))
		if r.IntN(5) == 0 {
			must(t, ours.Delete(k), ref.Delete(k))
			continue
		}
		must(t, ours.Set(k, v), ref.Set(k, v))
	}
	bounds := [][]byte{nil, []byte("000"), []byte("050"), []byte("0505"), []byte("100"), []byte("199"), []byte("300")}
	for _, start := range bounds {
		for _, end := range bounds {
			for _, reverse := range []bool{false, true} {
				name := fmt.Sprintf("[%s,%s) reverse=%v", start, end, reverse)
				got, want := walk(t, ours, start, end, reverse), walk(t, ref, start, end, reverse)
				if got != want {
					t.Errorf("%s:\n got %s\nwant %s", name, got, want)
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	db := New()
	for name, err := range map[string]error{
		"get of an empty key":        second(db.Get(nil)),
		"set of an empty key":        db.Set([]byte{}, []byte("v")),
		"set of a nil value":         db.Set([]byte("k"), nil),
		"delete of an empty key":     db.Delete(nil),
		"iterator from an empty key": second(db.Iterator([]byte{}, nil)),
		"reverse to an empty key":    second(db.ReverseIterator(nil, []byte{})),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// A batch applies its operations at once on Write, and refuses use after it.
func TestBatch(t *testing.T) {
	db := New()
	mustSet(t, db, "gone", "1")
	b := db.NewBatch()
	if err := b.Set([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("gone")); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.GetByteSize(); n != 1+1+4 {
		t.Fatalf("byte size %d, want 6", n)
	}
	if v, _ := db.Get([]byte("a")); v != nil {
		t.Fatal("a batch wrote before Write")
	}
	if err := b.Write(); err != nil {
		t.Fatal(err)
	}
	if v, _ := db.Get([]byte("a")); string(v) != "1" {
		t.Fatalf("a = %q after Write", v)
	}
	if ok, _ := db.Has([]byte("gone")); ok {
		t.Fatal("deleted key still there")
	}
	if err := b.Set([]byte("b"), []byte("2")); err == nil {
		t.Fatal("a written batch took a Set")
	}
	if err := b.Write(); err == nil {
		t.Fatal("a written batch wrote again")
	}
}

// Set copies what it is given: a caller's buffer reused does not change the database.
func TestSetCopies(t *testing.T) {
	db := New()
	k, v := []byte("key"), []byte("value")
	mustSet(t, db, string(k), string(v))
	if err := db.Set(k, v); err != nil {
		t.Fatal(err)
	}
	k[0], v[0] = 'X', 'X'
	if got, _ := db.Get([]byte("key")); string(got) != "value" {
		t.Fatalf("value %q after the caller changed its buffer", got)
	}
}

func walk(t *testing.T, db dbm.DB, start, end []byte, reverse bool) string {
	t.Helper()
	var it dbm.Iterator
	var err error
	if reverse {
		it, err = db.ReverseIterator(start, end)
	} else {
		it, err = db.Iterator(start, end)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var b bytes.Buffer
	for ; it.Valid(); it.Next() {
		fmt.Fprintf(&b, "%s=%s ", it.Key(), it.Value())
	}
	return b.String()
}

func mustSet(t *testing.T, db dbm.DB, k, v string) {
	t.Helper()
	if err := db.Set([]byte(k), []byte(v)); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, errs ...error) {
	t.Helper()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func second[T any](_ T, err error) error { return err }
