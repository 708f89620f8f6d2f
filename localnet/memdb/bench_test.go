package memdb

import (
	"fmt"
	"testing"

	dbm "github.com/cosmos/cosmos-db"
)

// BenchmarkDB compares this database with cosmos-db's MemDB, which it replaces, on what
// IAVL asks of it: batched writes, point reads, and iterators of 100 keys opened often.
func BenchmarkDB(b *testing.B) {
	for _, impl := range []struct {
		name string
		new  func() dbm.DB
	}{{"memdb", func() dbm.DB { return New() }}, {"cosmos-memdb", func() dbm.DB { return dbm.NewMemDB() }}} {
		db := impl.new()
		keys := make([][]byte, 100_000)
		for i := range keys {
			keys[i] = []byte(fmt.Sprintf("key%08d", i*7919%len(keys)))
			if err := db.Set(keys[i], keys[i]); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(impl.name+"/batch-of-100", func(b *testing.B) {
			for i := range b.N {
				batch := db.NewBatch()
				for j := range 100 {
					_ = batch.Set(keys[(i*100+j)%len(keys)], []byte("value"))
				}
				if err := batch.Write(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(impl.name+"/get", func(b *testing.B) {
			for i := range b.N {
				if _, err := db.Get(keys[i%len(keys)]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(impl.name+"/iterate-100", func(b *testing.B) {
			for i := range b.N {
				it, err := db.Iterator(keys[i%len(keys)], nil)
				if err != nil {
					b.Fatal(err)
				}
				for n := 0; n < 100 && it.Valid(); n++ {
					_ = it.Value()
					it.Next()
				}
				it.Close()
			}
		})
		b.Run(impl.name+"/iterate-100-between-writes", func(b *testing.B) {
			for i := range b.N {
				_ = db.Set(keys[(i*31)%len(keys)], []byte("v"))
				it, err := db.Iterator(keys[i%len(keys)], nil)
				if err != nil {
					b.Fatal(err)
				}
				for n := 0; n < 100 && it.Valid(); n++ {
					it.Next()
				}
				it.Close()
			}
		})
	}
}
