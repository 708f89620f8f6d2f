package minitia

import (
	"encoding/json"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtcrypto "github.com/cometbft/cometbft/proto/tendermint/crypto"
	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	gwruntime "github.com/grpc-ecosystem/grpc-gateway/runtime"
)

// sequencerModule names the module that holds the rollup's validator set.
const sequencerModule = "sequencer"

// sequencer stands where opchild stands in a minitia: a rollup has one operator-run
// validator, which its genesis names, and no staking. Its InitGenesis hands that set to
// CometBFT (the SDK's module manager wants one module to).
type sequencer struct{}

// sequencerGenesis is the module's genesis: the validators' ed25519 public keys and powers.
type sequencerGenesis struct {
	Validators []sequencerValidator `json:"validators"`
}

type sequencerValidator struct {
	PubKey []byte `json:"pub_key"` // ed25519, 32 bytes
	Power  int64  `json:"power"`
}

func (sequencer) Name() string        { return sequencerModule }
func (sequencer) IsOnePerModuleType() {}
func (sequencer) IsAppModule()        {}

// The module has no messages, queries or routes.
func (sequencer) RegisterLegacyAminoCodec(*codec.LegacyAmino)                   {}
func (sequencer) RegisterInterfaces(codectypes.InterfaceRegistry)               {}
func (sequencer) RegisterGRPCGatewayRoutes(client.Context, *gwruntime.ServeMux) {}

func (sequencer) DefaultGenesis(codec.JSONCodec) json.RawMessage {
	return json.RawMessage(`{"validators":[]}`)
}

func (sequencer) ValidateGenesis(_ codec.JSONCodec, _ client.TxEncodingConfig, bz json.RawMessage) error {
	_, err := parseSequencerGenesis(bz)
	return err
}

func (sequencer) InitGenesis(_ sdk.Context, _ codec.JSONCodec, bz json.RawMessage) []abci.ValidatorUpdate {
	g, err := parseSequencerGenesis(bz)
	if err != nil {
		panic(err)
	}
	out := make([]abci.ValidatorUpdate, 0, len(g.Validators))
	for _, v := range g.Validators {
		out = append(out, abci.ValidatorUpdate{
			PubKey: cmtcrypto.PublicKey{Sum: &cmtcrypto.PublicKey_Ed25519{Ed25519: v.PubKey}}, Power: v.Power})
	}
	return out
}

func (sequencer) ExportGenesis(sdk.Context, codec.JSONCodec) json.RawMessage {
	return json.RawMessage(`{"validators":[]}`)
}

func parseSequencerGenesis(bz json.RawMessage) (sequencerGenesis, error) {
	var g sequencerGenesis
	if err := json.Unmarshal(bz, &g); err != nil {
		return g, fmt.Errorf("sequencer genesis: %w", err)
	}
	for i, v := range g.Validators {
		if len(v.PubKey) != 32 || v.Power <= 0 {
			return g, fmt.Errorf("sequencer genesis: validator %d: want a 32-byte ed25519 key and a positive power", i)
		}
	}
	return g, nil
}
