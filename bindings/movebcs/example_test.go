package movebcs_test

import (
	"encoding/hex"
	"fmt"

	"github.com/vipharness/vipharness/bindings/movebcs"
)

// The arguments of vip_score::update_score_script(stage, addrs, scores), as a MsgExecute
// carries them.
func Example() {
	addrs := []movebcs.Address{movebcs.MustAddress("0xa"), movebcs.MustAddress("0xb")}
	args := [][]byte{movebcs.ArgU64(7), movebcs.ArgAddresses(addrs), movebcs.ArgU64s([]uint64{100, 200})}
	fmt.Println(hex.EncodeToString(args[0]))
	fmt.Println(len(args[1]), "bytes for", len(addrs), "addresses")
	fmt.Println(addrs[0].Short())

	abort, ok := movebcs.ParseAbort("VM aborted: location=0xf39f::vip_score, code=65544")
	fmt.Println(ok, abort.Module, abort.Category(), abort.Reason())
	// Output:
	// 0700000000000000
	// 65 bytes for 2 addresses
	// 0xa
	// true 0xf39f::vip_score 1 8
}
