package minitia

import (
	"encoding/hex"
	"encoding/json"
	"fmt"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/cometbft/cometbft/crypto/ed25519"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/cosmos-sdk/crypto/hd"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/go-bip39"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// Account is a development account: its bech32 address, the mnemonic it was derived from and
// its private key. These are throwaway secrets of a local chain.
type Account struct {
	Address    string
	Mnemonic   string
	PrivateKey string // hex, no 0x
	Key        cryptotypes.PrivKey
	KeyType    vip.KeyType
}

// NewMnemonic returns a fresh 24-word BIP39 mnemonic.
func NewMnemonic() (string, error) {
	entropy, err := bip39.NewEntropy(256)
	if err != nil {
		return "", fmt.Errorf("mnemonic entropy: %w", err)
	}
	return bip39.NewMnemonic(entropy)
}

// DeriveAccount derives the first account of a mnemonic for a key kind and bech32 prefix.
func DeriveAccount(mnemonic string, kind vip.KeyType, prefix string) (Account, error) {
	secret, err := hd.Secp256k1.Derive()(mnemonic, "", keys.PathFor(kind, 0).String())
	if err != nil {
		return Account{}, fmt.Errorf("derive key: %w", err)
	}
	key, err := keys.PrivKeyFromBytes(secret, kind)
	if err != nil {
		return Account{}, err
	}
	addr, err := bech32.ConvertAndEncode(prefix, key.PubKey().Address())
	if err != nil {
		return Account{}, fmt.Errorf("encode address: %w", err)
	}
	return Account{Address: addr, Mnemonic: mnemonic, PrivateKey: hex.EncodeToString(secret), Key: key, KeyType: kind}, nil
}

// otherKeyType is the key kind funded beside kind (coin type 60 beside 118 and back).
func otherKeyType(kind vip.KeyType) vip.KeyType {
	if kind == vip.EthSecp256k1 {
		return vip.Secp256k1
	}
	return vip.EthSecp256k1
}

// genesisMnemonics are cfg's mnemonics and cfg.GeneratedAccounts fresh ones.
func genesisMnemonics(cfg Config) ([]string, error) {
	mnemonics := append([]string(nil), cfg.Mnemonics...)
	for range cfg.GeneratedAccounts {
		m, err := NewMnemonic()
		if err != nil {
			return nil, err
		}
		mnemonics = append(mnemonics, m)
	}
	return mnemonics, nil
}

// fundedAccounts are each mnemonic's accounts of cfg.KeyType and of the other key type.
func fundedAccounts(cfg Config, mnemonics []string) (funded, also []Account, err error) {
	for _, m := range mnemonics {
		acc, err := DeriveAccount(m, cfg.KeyType, cfg.Bech32Prefix)
		if err != nil {
			return nil, nil, fmt.Errorf("minitia: funded account: %w", err)
		}
		other, err := DeriveAccount(m, otherKeyType(cfg.KeyType), cfg.Bech32Prefix)
		if err != nil {
			return nil, nil, fmt.Errorf("minitia: funded account: %w", err)
		}
		funded, also = append(funded, acc), append(also, other)
	}
	return funded, also, nil
}

// genesis is a chain's start: its genesis document and the accounts it funds.
type genesis struct {
	doc    *cmttypes.GenesisDoc
	funded []Account // of cfg.KeyType, one per mnemonic
	also   []Account // of the other key type, in the same order
}

// newGenesis funds every mnemonic's accounts of both key kinds, names the validator and
// applies cfg.Genesis.
func newGenesis(cfg Config, a *App, valKey ed25519.PrivKey, mnemonics []string) (*genesis, error) {
	g := &genesis{}
	cdc := a.enc.Codec
	state := a.DefaultGenesis()

	var accounts []authtypes.GenesisAccount
	var balances []banktypes.Balance
	coins := sdk.NewCoins(sdk.NewCoin(cfg.FeeDenom, cfg.GenesisBalance))
	seen := map[string]bool{}
	fund := func(acc Account) {
		if seen[acc.Address] {
			return
		}
		seen[acc.Address] = true
		accounts = append(accounts, authtypes.NewBaseAccount(acc.Key.PubKey().Address().Bytes(), nil, uint64(len(accounts)), 0))
		balances = append(balances, banktypes.Balance{Address: acc.Address, Coins: coins})
	}
	var err error
	if g.funded, g.also, err = fundedAccounts(cfg, mnemonics); err != nil {
		return nil, err
	}
	for i := range g.funded {
		fund(g.funded[i])
		fund(g.also[i])
	}

	var authState authtypes.GenesisState
	if err := cdc.UnmarshalJSON(state[authtypes.ModuleName], &authState); err != nil {
		return nil, fmt.Errorf("minitia: auth genesis: %w", err)
	}
	packed, err := authtypes.PackAccounts(accounts)
	if err != nil {
		return nil, fmt.Errorf("minitia: pack accounts: %w", err)
	}
	authState.Accounts = packed
	if state[authtypes.ModuleName], err = cdc.MarshalJSON(&authState); err != nil {
		return nil, err
	}

	var bankState banktypes.GenesisState
	if err := cdc.UnmarshalJSON(state[banktypes.ModuleName], &bankState); err != nil {
		return nil, fmt.Errorf("minitia: bank genesis: %w", err)
	}
	bankState.Balances = banktypes.SanitizeGenesisBalances(balances)
	bankState.DenomMetadata = []banktypes.Metadata{{
		Description: "the rollup's fee token", Base: cfg.FeeDenom, Display: cfg.FeeDenom, Name: cfg.FeeDenom, Symbol: cfg.FeeDenom,
		DenomUnits: []*banktypes.DenomUnit{{Denom: cfg.FeeDenom, Exponent: 0}},
	}}
	if state[banktypes.ModuleName], err = cdc.MarshalJSON(&bankState); err != nil {
		return nil, err
	}

	// Anyone may upload and instantiate, as on a permissionless minitia.
	wasmState := wasmtypes.GenesisState{Params: wasmtypes.DefaultParams()}
	if state[wasmtypes.ModuleName], err = cdc.MarshalJSON(&wasmState); err != nil {
		return nil, err
	}

	seq, err := json.Marshal(sequencerGenesis{Validators: []sequencerValidator{{PubKey: valKey.PubKey().Bytes(), Power: feeroutes.SequencerConsPower}}})
	if err != nil {
		return nil, err
	}
	state[sequencerModule] = seq

	if cfg.Bridge != nil {
		// The bridge executor is the first mnemonic's account of Initia's key kind, as a
		// minitia launched for that mnemonic names it.
		var executor string
		for _, list := range [][]Account{g.funded, g.also} {
			if len(list) > 0 && list[0].KeyType == vip.EthSecp256k1 {
				executor = list[0].Address
			}
		}
		op, err := json.Marshal(opchildGenesis{BridgeInfo: cfg.Bridge.Info(executor).Marshal(), Executor: executor})
		if err != nil {
			return nil, err
		}
		state[opchildStoreKey] = op
	}

	if cfg.Genesis != nil {
		if err := cfg.Genesis(state); err != nil {
			return nil, fmt.Errorf("minitia: genesis: %w", err)
		}
	}
	appState, err := json.Marshal(state)
	if err != nil {
		return nil, err
	}

	params := cmttypes.DefaultConsensusParams()
	params.Block.MaxBytes = max(params.Block.MaxBytes, 2*cfg.MaxTxBytes)
	params.Block.MaxGas = -1
	if cfg.MaxBlockGas > 0 {
		params.Block.MaxGas = cfg.MaxBlockGas
	}
	g.doc = &cmttypes.GenesisDoc{
		GenesisTime:     cfg.GenesisTime,
		ChainID:         cfg.ChainID,
		InitialHeight:   1,
		ConsensusParams: params,
		Validators: []cmttypes.GenesisValidator{{
			Address: valKey.PubKey().Address(), PubKey: valKey.PubKey(), Power: feeroutes.SequencerConsPower, Name: "sequencer"}},
		AppState: appState,
	}
	if err := g.doc.ValidateAndComplete(); err != nil {
		return nil, fmt.Errorf("minitia: genesis document: %w", err)
	}
	return g, nil
}
