package router

// Paths of the Skip Go API's info endpoints, which the Skip SDK's executeRoute reads before
// it signs (chains for the signer's chain type, assets and balances for the gas check).
const (
	PathChains   = "/v2/info/chains"
	PathAssets   = "/v2/fungible/assets"
	PathBalances = "/v2/info/balances"
)

// GasPrice is a fee asset's gas prices, decimals as strings.
type GasPrice struct {
	Low     string `json:"low,omitempty"`
	Average string `json:"average,omitempty"`
	High    string `json:"high,omitempty"`
}

// FeeAsset is a denom a chain takes fees in.
type FeeAsset struct {
	Denom    string    `json:"denom"`
	GasPrice *GasPrice `json:"gas_price,omitempty"`
}

// CosmosModuleSupport says which optional Cosmos modules a chain runs.
type CosmosModuleSupport struct {
	Authz    bool `json:"authz"`
	Feegrant bool `json:"feegrant"`
}

// IBCCapabilities says what a chain's IBC stack does beyond plain transfers.
type IBCCapabilities struct {
	CosmosPFM       bool `json:"cosmos_pfm"`
	CosmosIBCHooks  bool `json:"cosmos_ibc_hooks"`
	CosmosMemo      bool `json:"cosmos_memo"`
	CosmosAutopilot bool `json:"cosmos_autopilot"`
}

// ChainInfo is one entry of GET /v2/info/chains (Skip's Chain).
type ChainInfo struct {
	ChainName           string              `json:"chain_name"`
	ChainID             string              `json:"chain_id"`
	PFMEnabled          bool                `json:"pfm_enabled"`
	CosmosModuleSupport CosmosModuleSupport `json:"cosmos_module_support"`
	SupportsMemo        bool                `json:"supports_memo"`
	LogoURI             string              `json:"logo_uri,omitempty"`
	Bech32Prefix        string              `json:"bech32_prefix"`
	FeeAssets           []FeeAsset          `json:"fee_assets"`
	ChainType           string              `json:"chain_type"`
	IBCCapabilities     IBCCapabilities     `json:"ibc_capabilities"`
	IsTestnet           bool                `json:"is_testnet"`
	PrettyName          string              `json:"pretty_name"`
}

// ChainsResponse is the answer of GET /v2/info/chains.
type ChainsResponse struct {
	Chains []ChainInfo `json:"chains"`
}

// AssetInfo is one asset of GET /v2/fungible/assets (Skip's Asset).
type AssetInfo struct {
	Denom             string `json:"denom"`
	ChainID           string `json:"chain_id"`
	OriginDenom       string `json:"origin_denom"`
	OriginChainID     string `json:"origin_chain_id"`
	Trace             string `json:"trace"`
	IsCW20            bool   `json:"is_cw20"`
	IsEVM             bool   `json:"is_evm"`
	IsSVM             bool   `json:"is_svm"`
	Symbol            string `json:"symbol,omitempty"`
	Name              string `json:"name,omitempty"`
	LogoURI           string `json:"logo_uri,omitempty"`
	Decimals          int    `json:"decimals"`
	TokenContract     string `json:"token_contract,omitempty"`
	RecommendedSymbol string `json:"recommended_symbol,omitempty"`
}

// ChainAssets is one chain's entry of chain_to_assets_map.
type ChainAssets struct {
	Assets []AssetInfo `json:"assets"`
}

// AssetsResponse is the answer of GET /v2/fungible/assets.
type AssetsResponse struct {
	ChainToAssetsMap map[string]ChainAssets `json:"chain_to_assets_map"`
}

// BalancesRequestChain is what POST /v2/info/balances asks of one chain: an address and
// the denoms (all the chain's assets when empty).
type BalancesRequestChain struct {
	Address string   `json:"address"`
	Denoms  []string `json:"denoms,omitempty"`
}

// BalancesRequest is the body of POST /v2/info/balances, keyed by chain id.
type BalancesRequest struct {
	Chains map[string]BalancesRequestChain `json:"chains"`
}

// BalanceError is why one balance could not be read.
type BalanceError struct {
	Message string `json:"message"`
}

// Balance is one denom's balance: base units, decimals and the amount in whole units.
type Balance struct {
	Amount          string        `json:"amount"`
	Decimals        int           `json:"decimals"`
	FormattedAmount string        `json:"formatted_amount"`
	Price           string        `json:"price,omitempty"`
	ValueUSD        string        `json:"value_usd,omitempty"`
	Error           *BalanceError `json:"error,omitempty"`
}

// BalancesChain is one chain's entry of a balances answer.
type BalancesChain struct {
	Address string             `json:"address"`
	Denoms  map[string]Balance `json:"denoms"`
}

// BalancesResponse is the answer of POST /v2/info/balances.
type BalancesResponse struct {
	Chains map[string]BalancesChain `json:"chains"`
}
