package xevm

import (
	"fmt"

	sdkmath "cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"google.golang.org/protobuf/encoding/protowire"
)

// Params are x/evm's params as a minievm keeps them: minievm.evm.v1.Params in its encoding,
// under its key, read on the tx's gas where a minievm reads them (before every EVM call, at a
// create for its allowed publishers, and for the gas refund ratio). The module writes a
// minievm's defaults with the chain's fee denom at genesis; the fields a minievm leaves empty
// by default (extra EIPs, allowed publishers and custom ERC-20s, gas enforcement) are not
// kept, and an empty publisher list lets anyone create, as there.
type Params struct {
	AllowCustomERC20     bool
	FeeDenom             string
	GasRefundRatio       sdkmath.LegacyDec
	NumRetainBlockHashes uint64
}

// paramsKey is minievm's ParamsKey.
var paramsKey = []byte{0x51}

// DefaultParams are a minievm's default params with denom as the fee denom.
func DefaultParams(denom string) Params {
	return Params{AllowCustomERC20: true, FeeDenom: denom, GasRefundRatio: sdkmath.LegacyNewDecWithPrec(5, 1), NumRetainBlockHashes: 256}
}

// Field numbers of minievm.evm.v1.Params.
const (
	fieldAllowCustomERC20     = 3
	fieldFeeDenom             = 5
	fieldGasRefundRatio       = 6
	fieldNumRetainBlockHashes = 7
)

func (p Params) marshal() ([]byte, error) {
	var b []byte
	if p.AllowCustomERC20 {
		b = protowire.AppendTag(b, fieldAllowCustomERC20, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	}
	if p.FeeDenom != "" {
		b = protowire.AppendTag(b, fieldFeeDenom, protowire.BytesType)
		b = protowire.AppendString(b, p.FeeDenom)
	}
	// A cosmos.Dec is its scaled integer's decimal string (gogoproto's customtype).
	ratio, err := p.GasRefundRatio.Marshal()
	if err != nil {
		return nil, err
	}
	b = protowire.AppendTag(b, fieldGasRefundRatio, protowire.BytesType)
	b = protowire.AppendBytes(b, ratio)
	if p.NumRetainBlockHashes != 0 {
		b = protowire.AppendTag(b, fieldNumRetainBlockHashes, protowire.VarintType)
		b = protowire.AppendVarint(b, p.NumRetainBlockHashes)
	}
	return b, nil
}

func unmarshalParams(b []byte) (Params, error) {
	p := Params{GasRefundRatio: sdkmath.LegacyZeroDec()}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return p, protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == fieldAllowCustomERC20 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return p, protowire.ParseError(n)
			}
			p.AllowCustomERC20, b = v != 0, b[n:]
		case num == fieldNumRetainBlockHashes && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return p, protowire.ParseError(n)
			}
			p.NumRetainBlockHashes, b = v, b[n:]
		case (num == fieldFeeDenom || num == fieldGasRefundRatio) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return p, protowire.ParseError(n)
			}
			b = b[n:]
			if num == fieldFeeDenom {
				p.FeeDenom = string(v)
			} else if err := p.GasRefundRatio.Unmarshal(v); err != nil {
				return p, fmt.Errorf("gas_refund_ratio: %w", err)
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return p, protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return p, nil
}

// Params reads the module's params (on ctx's gas, as a minievm's Params.Get).
func (k *Keeper) Params(ctx sdk.Context) (Params, error) {
	b := ctx.KVStore(k.key).Get(paramsKey)
	if b == nil {
		return Params{}, fmt.Errorf("xevm: no params in the store")
	}
	return unmarshalParams(b)
}

// SetParams writes the module's params.
func (k *Keeper) SetParams(ctx sdk.Context, p Params) error {
	b, err := p.marshal()
	if err != nil {
		return fmt.Errorf("xevm: encode params: %w", err)
	}
	ctx.KVStore(k.key).Set(paramsKey, b)
	return nil
}
