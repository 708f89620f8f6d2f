package xevm

import (
	"fmt"
	"testing"

	storetypes "cosmossdk.io/store/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/vipharness/vipharness/contracts/evm"
)

// The scoring contract costs the EVM gas a minievm charges. The figures are what Initia's
// go-ethereum fork (v1.15.11-initia.0, a minievm v1.2.18's EVM) charged for the same init
// code and calls under minievm's chain config and tx flow (intrinsic gas, the origin and
// target warm, refunds capped at a fifth), run beside this keeper outside the repository;
// every opcode's charge agreed. Prague's pricing (no Verkle) charges 1,384,965 for the
// deploy and ~29,600 a new address.
func TestScoringContractCostsWhatAMinievmCharges(t *testing.T) {
	keys := storetypes.NewKVStoreKeys(ModuleName, "acc")
	ctx := testutil.DefaultContextWithKeys(keys, nil, nil).WithChainID("test-1").WithBlockHeight(10)
	k := &Keeper{key: keys[ModuleName], accounts: fakeAccounts{keys["acc"]}, denom: "umin"}
	if err := k.SetParams(ctx, DefaultParams("umin")); err != nil {
		t.Fatal(err)
	}
	sender := common.HexToAddress("0x1000000000000000000000000000000000000001")
	contractABI := evm.ABI()
	args, err := contractABI.Pack("", uint64(1))
	if err != nil {
		t.Fatal(err)
	}
	run := func(to *common.Address, input []byte) outcome {
		t.Helper()
		out, err := k.execute(ctx.WithGasMeter(storetypes.NewGasMeter(30_000_000)), sender, to, input, uint256.NewInt(0), nil, true)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	deploy := run(nil, append(evm.Bin(), args...))
	if deploy.gasUsed != 309_365 {
		t.Errorf("deploy used %d gas, a minievm's EVM 309,365", deploy.gasUsed)
	}
	off := 0
	for _, tc := range []struct {
		n    int
		want uint64
	}{{1, 69_877}, {10, 166_197}, {100, 1_028_429}} {
		addrs, amounts := make([]common.Address, tc.n), make([]uint64, tc.n)
		for i := range tc.n {
			addrs[i] = common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("addr-%d", off+i))))
			amounts[i] = uint64(1000 + i)
		}
		off += tc.n
		input, err := contractABI.Pack("updateScores", uint64(1), addrs, amounts)
		if err != nil {
			t.Fatal(err)
		}
		if got := run(&deploy.contract, input).gasUsed; got != tc.want {
			t.Errorf("updateScores of %d new addresses used %d gas, a minievm's EVM %d", tc.n, got, tc.want)
		}
	}
}
