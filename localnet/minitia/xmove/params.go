package xmove

import (
	"context"
	"encoding/hex"
	"net/http"
	"strings"

	"cosmossdk.io/core/address"
	"cosmossdk.io/math"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authkeeper "github.com/cosmos/cosmos-sdk/x/auth/keeper"
	"github.com/cosmos/gogoproto/proto"
	"golang.org/x/crypto/sha3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
)

// Chain is what x/move reads of the rest of the app.
type Chain struct {
	Accounts  authkeeper.AccountKeeper
	Addresses address.Codec
	// Supply is the bank's: the denoms a fungible asset metadata address can name.
	Supply Supply
	// Blocked says the bank refuses to send to addr (nil: no address is blocked).
	Blocked func(addr sdk.AccAddress) bool
	// BaseDenom and MinGasPrice are the params' base_denom and base_min_gas_price.
	BaseDenom   string
	MinGasPrice math.LegacyDec
}

// Supply walks the bank's total supply.
type Supply interface {
	IterateTotalSupply(ctx context.Context, cb func(sdk.Coin) bool)
}

// movePrefix marks a denom issued on the Move side: "move/" and its metadata address in hex.
const movePrefix = "move/"

// StdAddress is 0x1, the framework's address.
var StdAddress = movebcs.Address{31: 1}

// objectAddress is an address object.move derives: the SHA3-256 of the source, the seed and
// the derivation scheme's byte.
func objectAddress(source movebcs.Address, seed []byte, scheme byte) movebcs.Address {
	h := sha3.New256()
	h.Write(source[:])
	h.Write(seed)
	h.Write([]byte{scheme})
	var out movebcs.Address
	copy(out[:], h.Sum(nil))
	return out
}

// NamedObjectAddress is the object a creator names with a seed (scheme 0xFE). A coin that
// the bank issues (not Move) has its metadata at the object named by its denom under 0x1.
func NamedObjectAddress(creator movebcs.Address, seed string) movebcs.Address {
	return objectAddress(creator, []byte(seed), 0xFE)
}

// PrimaryStoreAddress is owner's primary fungible store of the asset at metadata: the
// object derived from the owner's address with the metadata's (scheme 0xFC).
func PrimaryStoreAddress(owner, metadata movebcs.Address) movebcs.Address {
	return objectAddress(owner, metadata[:], 0xFC)
}

// MetadataOf is the address of denom's fungible asset metadata, as x/move maps a denom: the
// address a "move/<hex>" denom names, else the denom's named object under 0x1 (any string
// names one). Its refusals are x/move's words, unwrapped: gRPC code 2, as a minimove
// answers them.
func MetadataOf(denom string) (movebcs.Address, error) {
	hexAddr, ok := strings.CutPrefix(denom, movePrefix)
	if !ok {
		return NamedObjectAddress(StdAddress, denom), nil
	}
	if strings.ToLower(hexAddr) != hexAddr {
		return movebcs.Address{}, status.Error(codes.Unknown, "metadata address should be lowercase")
	}
	b, err := hex.DecodeString(hexAddr)
	if err != nil {
		return movebcs.Address{}, status.Error(codes.Unknown, err.Error())
	}
	var a movebcs.Address
	if len(b) > len(a) {
		return a, status.Error(codes.Unknown, "invalid length of address")
	}
	copy(a[len(a)-len(b):], b)
	return a, nil
}

// keeperQueries are the query methods the keeper answers from the app's state and settings
// rather than the VM: params, and the denom <-> metadata mapping.
func (k *Keeper) keeperQueries() []Query {
	return []Query{
		{
			Method: "/initia.move.v1.Query/Params",
			New:    func() proto.Message { return &initiamove.QueryParamsRequest{} },
			HTTP:   "GET /initia/move/v1/params",
			Handle: func(c Ctx, _ proto.Message) (proto.Message, error) { return k.params(c) },
		},
		{
			Method: "/initia.move.v1.Query/Metadata",
			New:    func() proto.Message { return &initiamove.QueryMetadataRequest{} },
			HTTP:   "GET /initia/move/v1/metadata",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*initiamove.QueryMetadataRequest).Denom = r.URL.Query().Get("denom")
				return nil
			},
			Handle: func(_ Ctx, r proto.Message) (proto.Message, error) {
				a, err := MetadataOf(r.(*initiamove.QueryMetadataRequest).Denom)
				if err != nil {
					return nil, err
				}
				return &initiamove.QueryMetadataResponse{Metadata: a.Short()}, nil
			},
		},
		{
			Method: "/initia.move.v1.Query/Denom",
			New:    func() proto.Message { return &initiamove.QueryDenomRequest{} },
			HTTP:   "GET /initia/move/v1/denom",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*initiamove.QueryDenomRequest).Metadata = r.URL.Query().Get("metadata")
				return nil
			},
			Handle: func(c Ctx, r proto.Message) (proto.Message, error) {
				return k.denom(c, r.(*initiamove.QueryDenomRequest).Metadata)
			},
		},
	}
}

func (k *Keeper) params(c Ctx) (proto.Message, error) {
	p := initiamove.Params{
		BaseDenom:       k.chain.BaseDenom,
		BaseMinGasPrice: k.chain.MinGasPrice.String(),
		// No distribution module runs here: fees are not shared with contract developers.
		ContractSharedRevenueRatio: math.LegacyZeroDec().String(),
		// Scripts run (MsgScript, MsgScriptJSON), as on a minimove.
		ScriptEnabled:     true,
		AllowedPublishers: []string{},
	}
	for _, a := range k.exec.allowed {
		s, err := c.Addresses().BytesToString(a.AccountBytes())
		if err != nil {
			return nil, status.Errorf(codes.Internal, "allowed publisher %s: %v", a.Short(), err)
		}
		p.AllowedPublishers = append(p.AllowedPublishers, s)
	}
	return &initiamove.QueryParamsResponse{Params: p}, nil
}

// denom names the coin whose metadata is at metadata, as x/move does (DenomOf). Where the
// framework keeps no metadata for the bank's coins (the L1 stand-in's x/bank), a bank denom
// whose named object it is names it; an address that names nothing is not found.
func (k *Keeper) denom(c Ctx, metadata string) (proto.Message, error) {
	a, err := movebcs.ParseAddress(metadata)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "metadata %q: %v", metadata, err)
	}
	sctx, ok := c.(moveCtx)
	if !ok {
		return nil, status.Errorf(codes.Internal, "denom query outside the module's context")
	}
	denom, ok, err := k.DenomOf(sctx.Context, a)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	if ok {
		return &initiamove.QueryDenomResponse{Denom: denom}, nil
	}
	k.chain.Supply.IterateTotalSupply(sctx.Context, func(coin sdk.Coin) bool {
		if NamedObjectAddress(StdAddress, coin.Denom) == a {
			denom = coin.Denom
		}
		return denom != ""
	})
	if denom != "" {
		return &initiamove.QueryDenomResponse{Denom: denom}, nil
	}
	// x/move reads the metadata's symbol and passes the store's miss through.
	tag, err := k.exec.rt.StructTagKey("0x1::fungible_asset::Metadata")
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return nil, collectionsNotFound(movebcs.ResourceKey(a, tag))
}
