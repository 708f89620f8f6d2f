package xevm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	sdkmath "cosmossdk.io/math"
	abci "github.com/cometbft/cometbft/abci/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/contracts/evm/feetoken"
)

// transferLog is one Transfer log of the fee token found in a tx's x/evm events.
type transferLog struct {
	from, to common.Address
	amount   *big.Int
}

func (l transferLog) String() string { return fmt.Sprintf("%s -> %s: %s", l.from, l.to, l.amount) }

type eventLog struct {
	Address string
	Topics  []string
	Data    string
}

// eventLogs are the EVM logs in a tx's x/evm events.
func eventLogs(t *testing.T, events []abci.Event) []eventLog {
	t.Helper()
	var out []eventLog
	for _, ev := range events {
		if ev.Type != "evm" {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key != "log" {
				continue
			}
			var l eventLog
			if err := json.Unmarshal([]byte(a.Value), &l); err != nil {
				t.Fatalf("log %s: %v", a.Value, err)
			}
			out = append(out, l)
		}
	}
	return out
}

func feeTransfers(t *testing.T, events []abci.Event) []transferLog {
	t.Helper()
	topic := crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)")).Hex()
	var out []transferLog
	for _, l := range eventLogs(t, events) {
		if len(l.Topics) == 3 && l.Topics[0] == topic {
			out = append(out, transferLog{common.HexToAddress(l.Topics[1]), common.HexToAddress(l.Topics[2]), new(big.Int).SetBytes(common.FromHex(l.Data))})
		}
	}
	return out
}

func (tn *testNode) balance(t *testing.T, addr common.Address) *big.Int {
	t.Helper()
	var bal struct {
		Balance struct{ Amount string } `json:"balance"`
	}
	if err := tn.c.GetJSON(context.Background(), "/cosmos/bank/v1beta1/balances/"+tn.c.Enc.MustAddr(addr.Bytes())+"/by_denom?denom="+tn.node.Config().FeeDenom, &bal); err != nil {
		t.Fatal(err)
	}
	n, ok := new(big.Int).SetString(bal.Balance.Amount, 10)
	if !ok {
		t.Fatalf("balance %q", bal.Balance.Amount)
	}
	return n
}

// The fee denom is an ERC-20, as on a minievm: an Ethereum tx pays its fee and gets half its
// unused gas back through the token (both Transfer logs are the tx's), a bank send is the
// token's transfer, and the bank's supply is the token's.
func TestTheFeeDenomIsAnERC20(t *testing.T) {
	tn := start(t)
	ctx := context.Background()
	collector := common.BytesToAddress(authtypes.NewModuleAddress(authtypes.FeeCollectorName))
	sender := tn.evmAddr()
	to := common.HexToAddress("0x00000000000000000000000000000000000000ee")
	price, gas := big.NewInt(1_000_000_000), uint64(200_000)

	before := tn.balance(t, sender)
	code, log, hash := tn.sendEth(t, &types.LegacyTx{Nonce: tn.signer.Sequence, GasPrice: price, Gas: gas, To: &to, Value: big.NewInt(5)})
	if code != 0 {
		t.Fatalf("check: code %d %s", code, log)
	}
	res, err := tn.c.WaitTx(ctx, hash)
	if err != nil || res.Code != 0 {
		t.Fatalf("deliver: %v %v", res, err)
	}
	tn.signer.Sequence++
	fee := new(big.Int).Add(new(big.Int).Mul(price, new(big.Int).SetUint64(gas)), big.NewInt(1))
	refund := new(big.Int).Mul(new(big.Int).SetUint64((gas-uint64(res.GasUsed))/2), price)
	want := []transferLog{{sender, collector, fee}, {sender, to, big.NewInt(5)}, {collector, sender, refund}}
	got := feeTransfers(t, res.Events)
	if len(got) != len(want) {
		t.Fatalf("fee token Transfer logs %v, want the fee's payment, the value, the refund: %v", got, want)
	}
	for i := range want {
		if got[i].from != want[i].from || got[i].to != want[i].to || got[i].amount.Cmp(want[i].amount) != 0 {
			t.Errorf("Transfer log %d: %v, want %v", i, got[i], want[i])
		}
	}
	spent := new(big.Int).Sub(before, tn.balance(t, sender))
	if wantSpent := new(big.Int).Sub(new(big.Int).Add(fee, big.NewInt(5)), refund); spent.Cmp(wantSpent) != 0 {
		t.Errorf("the sender spent %s, want the fee and the value less the refund, %s", spent, wantSpent)
	}

	// A bank send of the fee denom is the token's transfer.
	other := common.HexToAddress("0x00000000000000000000000000000000000000ef")
	sent, err := tn.c.Exec(ctx, tn.signer, &banktypes.MsgSend{FromAddress: tn.sender(), ToAddress: tn.c.Enc.MustAddr(other.Bytes()),
		Amount: sdk.NewCoins(sdk.NewCoin(tn.node.Config().FeeDenom, sdkmath.NewInt(777)))})
	if err != nil {
		t.Fatalf("bank send: %v", err)
	}
	var moved bool
	for _, l := range feeTransfers(t, sent.Events) {
		moved = moved || (l.from == sender && l.to == other && l.amount.Int64() == 777)
	}
	if !moved {
		t.Errorf("a bank send's events hold no Transfer of 777 to %s: %v", other, feeTransfers(t, sent.Events))
	}
	if got := tn.balance(t, other); got.Int64() != 777 {
		t.Errorf("the recipient holds %s, want 777", got)
	}

	// The bank's supply is the token's totalSupply.
	var supply struct {
		Amount struct{ Amount string } `json:"amount"`
	}
	if err := tn.c.GetJSON(ctx, "/cosmos/bank/v1beta1/supply/by_denom?denom="+tn.node.Config().FeeDenom, &supply); err != nil {
		t.Fatal(err)
	}
	token := common.HexToAddress(collectorToken(t, res.Events))
	tokenABI := feetoken.ABI()
	tn.abi = &tokenABI
	vals, errText := tn.view(t, token, "totalSupply")
	if errText != "" {
		t.Fatal(errText)
	}
	if total := vals[0].(*big.Int); total.String() != supply.Amount.Amount || total.Sign() <= 0 {
		t.Errorf("the token's totalSupply %s, the bank's supply %s", total, supply.Amount.Amount)
	}
}

// collectorToken is the address of the contract whose log paid the fee (the tx's first).
func collectorToken(t *testing.T, events []abci.Event) string {
	t.Helper()
	logs := eventLogs(t, events)
	if len(logs) == 0 {
		t.Fatal("no x/evm log in the tx's events")
	}
	return logs[0].Address
}
