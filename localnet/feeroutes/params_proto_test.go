package feeroutes

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"testing"

	sdkmath "cosmossdk.io/math"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/crypto/keys/ed25519"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
)

func TestParamsProtoIsOpchildsEncoding(t *testing.T) {
	umin := sdk.NewDecCoins(sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.15")))
	executor := "init1jp474uxkp8a7kk8kc9rjxng3khn5ywe3a2tw9l"
	withAdmin := NewParams(umin)
	withAdmin.Admin, withAdmin.BridgeExecutors = executor, []string{executor}
	for _, tc := range []struct {
		name   string
		params Params
		// want is the encoding, where a fact: the first is what a real miniwasm v1.2.11
		// keeps in opchild's store (read with `minitiad start --trace-store`).
		want string
	}{
		{"a real miniwasm's params", withAdmin, "086410904e1a1a0a04756d696e1212313530303030303030303030303030303030" +
			"222b" + hex.EncodeToString([]byte(executor)) + "2a2b" + hex.EncodeToString([]byte(executor)) + "38c08db701"},
		{"a local rollup's params", NewParams(umin), "086410904e1a1a0a04756d696e121231353030303030303030303030303030303038c08db701"},
		{"no prices", NewParams(nil), "086410904e38c08db701"},
		{"a whitelist and two prices", Params{MaxValidators: 1, MinGasPrices: sdk.NewDecCoins(
			sdk.NewDecCoinFromDec("uinit", sdkmath.LegacyMustNewDecFromStr("1.5")), sdk.NewDecCoinFromDec("umin", sdkmath.LegacyZeroDec())),
			BridgeExecutors: []string{}, FeeWhitelist: []string{"a", "b"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.params.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && hex.EncodeToString(b) != tc.want {
				t.Fatalf("encoding\n got %x\nwant %s", b, tc.want)
			}
			back, err := UnmarshalParams(b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.params) {
				t.Fatalf("round trip\n got %+v\nwant %+v", back, tc.params)
			}
		})
	}
}

func TestUnmarshalParamsRefusesATruncatedEncoding(t *testing.T) {
	b, _ := NewParams(sdk.NewDecCoins(sdk.NewDecCoinFromDec("umin", sdkmath.LegacyMustNewDecFromStr("0.15")))).Marshal()
	for _, cut := range []int{1, 4, len(b) - 1} {
		if _, err := UnmarshalParams(b[:cut]); err == nil {
			t.Fatalf("%d of %d bytes: want an error", cut, len(b))
		}
	}
}

// The validators answer decodes as opchild's QueryValidatorsResponse: each validator's
// fields, its key an Any of the ed25519 key, and the page's total.
func TestValidatorsResponseIsOpchilds(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	b := MarshalValidatorsResponse([]Validator{{Moniker: "sequencer", OperatorAddress: "initvaloper1x", ConsensusPubkey: Ed25519Key(key), ConsPower: SequencerConsPower}})
	var got []string
	var total uint64
	err := pbwalk.EachField(b, func(num protowire.Number, _ protowire.Type, v []byte, _ uint64) error {
		switch num {
		case 1:
			return pbwalk.EachField(v, func(num protowire.Number, _ protowire.Type, v []byte, n uint64) error {
				switch num {
				case 3:
					var anyKey codectypes.Any
					if err := anyKey.Unmarshal(v); err != nil {
						return err
					}
					var pk ed25519.PubKey
					if err := pk.Unmarshal(anyKey.Value); err != nil {
						return err
					}
					got = append(got, fmt.Sprintf("3=%s:%x", anyKey.TypeUrl, pk.Key))
				case 4:
					got = append(got, fmt.Sprintf("4=%d", n))
				default:
					got = append(got, fmt.Sprintf("%d=%s", num, v))
				}
				return nil
			})
		case 2:
			return pbwalk.EachField(v, func(num protowire.Number, _ protowire.Type, _ []byte, n uint64) error {
				if num == 2 {
					total = n
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[1=sequencer 2=initvaloper1x 3=/cosmos.crypto.ed25519.PubKey:%x 4=1]", key)
	if fmt.Sprint(got) != want || total != 1 {
		t.Fatalf("%v total %d, want %s total 1", got, total, want)
	}
}
