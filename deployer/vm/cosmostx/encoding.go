package cosmostx

import (
	"fmt"

	"cosmossdk.io/core/address"
	"cosmossdk.io/x/tx/signing"
	"cosmossdk.io/x/tx/signing/aminojson"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	addresscodec "github.com/cosmos/cosmos-sdk/codec/address"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/std"
	signingtypes "github.com/cosmos/cosmos-sdk/types/tx/signing"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
)

// Encoding is the chain's protobuf world: the interface registry (std, auth, bank,
// Initia's eth_secp256k1 key and the executor's messages), its codec, the bech32 address
// codec and a tx config signing in SIGN_MODE_DIRECT and Initia's SIGN_MODE_EIP_191. A client builds and signs txs with the
// same Encoding the node decodes them with.
type Encoding struct {
	Registry codectypes.InterfaceRegistry
	Codec    *codec.ProtoCodec
	TxConfig client.TxConfig
	Address  address.Codec
	Prefix   string
}

// NewEncoding builds the Encoding for a bech32 account prefix; register adds further
// message types (an executor's RegisterInterfaces).
func NewEncoding(prefix string, register ...func(codectypes.InterfaceRegistry)) (*Encoding, error) {
	addr := addresscodec.NewBech32Codec(prefix)
	reg, err := codectypes.NewInterfaceRegistryWithOptions(codectypes.InterfaceRegistryOptions{
		ProtoFiles: proto.HybridResolver,
		SigningOptions: signing.Options{
			AddressCodec:          addr,
			ValidatorAddressCodec: addresscodec.NewBech32Codec(prefix + "valoper"),
		},
	})
	if err != nil {
		return nil, fmt.Errorf("interface registry: %w", err)
	}
	std.RegisterInterfaces(reg)
	authtypes.RegisterInterfaces(reg)
	banktypes.RegisterInterfaces(reg)
	ethsecp256k1.RegisterInterfaces(reg)
	for _, r := range register {
		r(reg)
	}
	cdc := codec.NewProtoCodec(reg)
	// The registry's signing context carries the chain's address codecs: without it the SDK's
	// DIRECT_AUX handler falls back to the global config's "cosmos" prefix.
	txCfg, err := authtx.NewTxConfigWithOptions(cdc, authtx.ConfigOptions{
		SigningContext: reg.SigningContext(),
		// Initia's tx config: the SDK's three modes, EIP-191 beside them.
		EnabledSignModes: []signingtypes.SignMode{signingtypes.SignMode_SIGN_MODE_DIRECT, signingtypes.SignMode_SIGN_MODE_DIRECT_AUX, signingtypes.SignMode_SIGN_MODE_LEGACY_AMINO_JSON},
		CustomSignModes: []signing.SignModeHandler{newEIP191Handler(aminojson.SignModeHandlerOptions{
			FileResolver: reg, TypeResolver: protoregistry.GlobalTypes})},
	})
	if err != nil {
		return nil, fmt.Errorf("tx config: %w", err)
	}
	return &Encoding{Registry: reg, Codec: cdc, TxConfig: txCfg, Address: addr, Prefix: prefix}, nil
}

// MustAddr encodes address bytes in bech32; it panics only on an empty prefix.
func (e *Encoding) MustAddr(bz []byte) string {
	s, err := e.Address.BytesToString(bz)
	if err != nil {
		panic(err)
	}
	return s
}
