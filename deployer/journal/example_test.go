package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vipharness/vipharness/deployer/journal"
)

// A push writes its plan, then each chunk's signed tx before broadcasting it, then its
// result; a re-run opens the same journal and sees where the push stopped.
func Example() {
	dir, _ := os.MkdirTemp("", "journal-")
	defer os.RemoveAll(dir)
	path := journal.Key{ChainID: "evm-1337", Contract: "0xC0", Stage: 7, Input: "ab12"}.Path(dir)

	j, err := journal.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = j.Append(journal.Record{Op: journal.OpBegin, Stage: 7, Input: "ab12", Chunks: 2, ChunkSize: 500})
	_ = j.Append(journal.Record{Op: journal.OpSigned, Chunk: 0, Sequence: 4, Hash: "0xaa"})
	_ = j.Append(journal.Record{Op: journal.OpConfirmed, Chunk: 0, Hash: "0xaa", GasUsed: 21000})
	_ = j.Append(journal.Record{Op: journal.OpSigned, Chunk: 1, Sequence: 5, Hash: "0xbb"})
	_ = j.Close() // a crash here: chunk 1 is signed, maybe broadcast, not known to have landed

	again, err := journal.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer again.Close()
	begin, _ := again.Begin()
	fmt.Println(filepath.Base(path), "plans", begin.Chunks, "chunks")
	for i := range begin.Chunks {
		switch c := again.Chunk(i); {
		case c.Confirmed:
			fmt.Printf("chunk %d: confirmed in %s, never sent again\n", i, c.Hash)
		case len(c.Attempts) > 0:
			fmt.Printf("chunk %d: look up %s on the chain before signing anew\n", i, c.Attempts[len(c.Attempts)-1].Hash)
		default:
			fmt.Printf("chunk %d: not sent yet\n", i)
		}
	}
	// Output:
	// stage-7-ab12.jsonl plans 2 chunks
	// chunk 0: confirmed in 0xaa, never sent again
	// chunk 1: look up 0xbb on the chain before signing anew
}
