package feeroutes

import (
	"fmt"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vipharness/vipharness/bindings/pbwalk"
)

// Marshal is p as opinit.opchild.v1.Params' protobuf encoding, the bytes opchild keeps in its
// store (a fee checker reads them on every tx): max_validators 1, historical_entries 2,
// min_gas_prices 3 (DecCoin: denom 1, amount 2 as the decimal's 18-digit integer), bridge_executors 4,
// admin 5, fee_whitelist 6, hook_max_gas 7.
func (p Params) Marshal() ([]byte, error) {
	var b []byte
	varint := func(num protowire.Number, v uint64) {
		if v != 0 {
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, v)
		}
	}
	bytes := func(num protowire.Number, v []byte) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
	}
	varint(1, uint64(p.MaxValidators))
	varint(2, uint64(p.HistoricalEntries))
	for _, c := range p.MinGasPrices {
		amount, err := c.Amount.Marshal()
		if err != nil {
			return nil, fmt.Errorf("opchild params: min gas price %s: %w", c, err)
		}
		var coin []byte
		coin = protowire.AppendTag(coin, 1, protowire.BytesType)
		coin = protowire.AppendString(coin, c.Denom)
		coin = protowire.AppendTag(coin, 2, protowire.BytesType)
		coin = protowire.AppendBytes(coin, amount)
		bytes(3, coin)
	}
	for _, e := range p.BridgeExecutors {
		bytes(4, []byte(e))
	}
	if p.Admin != "" {
		bytes(5, []byte(p.Admin))
	}
	for _, a := range p.FeeWhitelist {
		bytes(6, []byte(a))
	}
	varint(7, p.HookMaxGas)
	return b, nil
}

// UnmarshalParams reads opinit.opchild.v1.Params from its protobuf encoding (Marshal's).
func UnmarshalParams(b []byte) (Params, error) {
	p := Params{MinGasPrices: sdk.DecCoins{}, BridgeExecutors: []string{}, FeeWhitelist: []string{}}
	err := pbwalk.EachField(b, func(num protowire.Number, _ protowire.Type, raw []byte, v uint64) error {
		switch num {
		case 1:
			p.MaxValidators = uint32(v)
		case 2:
			p.HistoricalEntries = uint32(v)
		case 3:
			var c sdk.DecCoin
			err := pbwalk.EachField(raw, func(num protowire.Number, _ protowire.Type, raw []byte, _ uint64) error {
				switch num {
				case 1:
					c.Denom = string(raw)
				case 2:
					var d sdkmath.LegacyDec
					if err := d.Unmarshal(raw); err != nil {
						return err
					}
					c.Amount = d
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("min gas price: %w", err)
			}
			p.MinGasPrices = append(p.MinGasPrices, c)
		case 4:
			p.BridgeExecutors = append(p.BridgeExecutors, string(raw))
		case 5:
			p.Admin = string(raw)
		case 6:
			p.FeeWhitelist = append(p.FeeWhitelist, string(raw))
		case 7:
			p.HookMaxGas = v
		}
		return nil
	})
	if err != nil {
		return Params{}, fmt.Errorf("opchild params: %w", err)
	}
	return p, nil
}

// MarshalNextL1SequenceResponse is opinit.opchild.v1.QueryNextL1SequenceResponse: the
// sequence in field 1 (absent when 0, as protobuf omits a zero).
func MarshalNextL1SequenceResponse(n uint64) []byte {
	if n == 0 {
		return []byte{}
	}
	return protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), n)
}

// MarshalParamsResponse is opinit.opchild.v1.QueryParamsResponse around params' encoding
// (Marshal's): what a minitia answers /opinit.opchild.v1.Query/Params over abci_query.
func MarshalParamsResponse(params []byte) []byte {
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(b, params)
}

// MarshalValidatorsResponse is opinit.opchild.v1.QueryValidatorsResponse of vals (one page
// holds them all): each a Validator (moniker 1, operator_address 2, consensus_pubkey 3 as an
// Any of the key's type, cons_power 4), then the PageResponse (total 2).
func MarshalValidatorsResponse(vals []Validator) []byte {
	var b []byte
	for _, v := range vals {
		var key []byte // cosmos.crypto.*.PubKey: key 1
		key = protowire.AppendTag(key, 1, protowire.BytesType)
		key = protowire.AppendBytes(key, v.ConsensusPubkey.Key)
		var anyKey []byte
		anyKey = protowire.AppendTag(anyKey, 1, protowire.BytesType)
		anyKey = protowire.AppendString(anyKey, v.ConsensusPubkey.Type)
		anyKey = protowire.AppendTag(anyKey, 2, protowire.BytesType)
		anyKey = protowire.AppendBytes(anyKey, key)
		var val []byte
		val = protowire.AppendTag(val, 1, protowire.BytesType)
		val = protowire.AppendString(val, v.Moniker)
		val = protowire.AppendTag(val, 2, protowire.BytesType)
		val = protowire.AppendString(val, v.OperatorAddress)
		val = protowire.AppendTag(val, 3, protowire.BytesType)
		val = protowire.AppendBytes(val, anyKey)
		if v.ConsPower != 0 {
			val = protowire.AppendTag(val, 4, protowire.VarintType)
			val = protowire.AppendVarint(val, uint64(v.ConsPower))
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendBytes(b, val)
	}
	var page []byte
	if len(vals) > 0 {
		page = protowire.AppendTag(page, 2, protowire.VarintType)
		page = protowire.AppendVarint(page, uint64(len(vals)))
	}
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, page)
}
