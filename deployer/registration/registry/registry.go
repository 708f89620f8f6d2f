// Package registry writes and checks a rollup's entry in Initia's public chain registry
// (initia-labs/initia-registry): <network>s/<name>/chain.json and assetlist.json, and
// profiles/<name>.json. Entries are built from what the live rollup reports (chain id, EVM
// chain id, bech32 prefix, fee tokens and gas prices, minitia type and version) plus the
// operator's inputs, printed as the registry's prettier check wants, and validated against
// JSON schemas written here from the registry's rules and against its CI's data rules. A
// refused rule names the file and the field.
package registry

import (
	"crypto/sha256"
	"embed"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/crypto/sha3"
)

//go:embed schemas/*.json
var schemas embed.FS

// RawBase is where the registry's files are served from; images and the assetlist link here.
const RawBase = "https://raw.githubusercontent.com/initia-labs/initia-registry/main/"

// Chain is chain.json, fields in the order registry entries write them.
type Chain struct {
	Schema       string    `json:"$schema"`
	ChainName    string    `json:"chain_name"`
	PrettyName   string    `json:"pretty_name,omitempty"`
	ChainID      string    `json:"chain_id"`
	EVMChainID   uint64    `json:"evm_chain_id,omitempty"`
	Website      string    `json:"website,omitempty"`
	Description  string    `json:"description,omitempty"`
	Bech32Prefix string    `json:"bech32_prefix"`
	NetworkType  string    `json:"network_type"`
	Codebase     *Codebase `json:"codebase,omitempty"`
	APIs         APIs      `json:"apis"`
	KeyAlgos     []string  `json:"key_algos,omitempty"`
	Slip44       int       `json:"slip44,omitempty"`
	Fees         Fees      `json:"fees"`
	Images       []Image   `json:"images,omitempty"`
	LogoURIs     *Logo     `json:"logo_URIs,omitempty"`
	Metadata     *Metadata `json:"metadata,omitempty"`
}

// Codebase names the node software and its release binaries.
type Codebase struct {
	GitRepo            string            `json:"git_repo"`
	RecommendedVersion string            `json:"recommended_version"`
	Binaries           map[string]string `json:"binaries,omitempty"`
}

// APIs are the public endpoints.
type APIs struct {
	RPC       []Endpoint `json:"rpc"`
	REST      []Endpoint `json:"rest"`
	GRPC      []Endpoint `json:"grpc,omitempty"`
	JSONRPC   []Endpoint `json:"json-rpc,omitempty"`
	JSONRPCWS []Endpoint `json:"json-rpc-websocket,omitempty"`
	Indexer   []Endpoint `json:"indexer,omitempty"`
}

// Endpoint is one public endpoint.
type Endpoint struct {
	Address string `json:"address"`
}

// Fees lists the fee tokens.
type Fees struct {
	FeeTokens []FeeToken `json:"fee_tokens"`
}

// FeeToken is a fee denom and its minimum gas price (kept as the decimal text the node gave).
type FeeToken struct {
	Denom            string      `json:"denom"`
	FixedMinGasPrice json.Number `json:"fixed_min_gas_price,omitempty"`
}

// Image is a logo.
type Image struct {
	PNG string `json:"png"`
}

// Logo is logo_URIs.
type Logo struct {
	PNG string `json:"png"`
}

// Metadata is the Initia-specific part.
type Metadata struct {
	OpBridgeID  string   `json:"op_bridge_id"`
	OpDenoms    []string `json:"op_denoms"`
	ExecutorURI string   `json:"executor_uri,omitempty"`
	Assetlist   string   `json:"assetlist,omitempty"`
	Minitia     *Minitia `json:"minitia,omitempty"`
}

// Minitia is the rollup's type and version.
type Minitia struct {
	Type    string `json:"type"`
	Version string `json:"version"`
}

// Assetlist is assetlist.json.
type Assetlist struct {
	Schema    string  `json:"$schema"`
	ChainName string  `json:"chain_name"`
	Assets    []Asset `json:"assets"`
}

// Asset is one token of the rollup.
type Asset struct {
	Description string      `json:"description,omitempty"`
	DenomUnits  []DenomUnit `json:"denom_units"`
	TypeAsset   string      `json:"type_asset,omitempty"`
	Address     string      `json:"address,omitempty"`
	Base        string      `json:"base"`
	Display     string      `json:"display"`
	Name        string      `json:"name"`
	Symbol      string      `json:"symbol"`
	Traces      []Trace     `json:"traces,omitempty"`
	Images      []Image     `json:"images,omitempty"`
	LogoURIs    *Logo       `json:"logo_URIs,omitempty"`
}

// DenomUnit is a unit of an asset.
type DenomUnit struct {
	Denom    string `json:"denom"`
	Exponent int    `json:"exponent"`
}

// Trace is an asset's origin; OP traces carry the bridge id.
type Trace struct {
	Type         string       `json:"type"`
	Counterparty Counterparty `json:"counterparty"`
	Chain        TraceChain   `json:"chain"`
}

// Counterparty is where a traced asset comes from.
type Counterparty struct {
	ChainName string `json:"chain_name"`
	BaseDenom string `json:"base_denom"`
}

// TraceChain is this chain's side of a trace.
type TraceChain struct {
	BridgeID string `json:"bridge_id,omitempty"`
}

// Profile is profiles/<name>.json.
type Profile struct {
	Schema      string  `json:"$schema"`
	Name        string  `json:"name"`
	PrettyName  string  `json:"pretty_name"`
	Category    string  `json:"category,omitempty"`
	L2          bool    `json:"l2"`
	Description string  `json:"description,omitempty"`
	Summary     string  `json:"summary,omitempty"`
	Logo        string  `json:"logo,omitempty"`
	Color       string  `json:"color,omitempty"`
	Status      string  `json:"status,omitempty"`
	VIP         *VIP    `json:"vip,omitempty"`
	Social      *Social `json:"social,omitempty"`
}

// VIP lists what users do to earn scores.
type VIP struct {
	Actions []Action `json:"actions"`
}

// Action is one scored activity.
type Action struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// Social links.
type Social struct {
	Website string `json:"website,omitempty"`
	Twitter string `json:"twitter,omitempty"`
}

// NetworkFolder is the registry folder of a network type: mainnets, testnets, devnets.
func NetworkFolder(networkType string) string { return networkType + "s" }

// IBCDenom is the denom an IBC transfer path gives: "ibc/" + upper-hex SHA-256 of the path.
func IBCDenom(path string) string {
	sum := sha256.Sum256([]byte(path))
	return "ibc/" + strings.ToUpper(hex.EncodeToString(sum[:]))
}

// L2Denom is the denom an OPinit bridge gives an L1 denom on the rollup: "l2/" + hex
// SHA3-256 of the bridge id (u64 big-endian) followed by the L1 denom.
func L2Denom(bridgeID uint64, l1Denom string) string {
	h := sha3.New256()
	h.Write(binary.BigEndian.AppendUint64(nil, bridgeID))
	h.Write([]byte(l1Denom))
	return "l2/" + hex.EncodeToString(h.Sum(nil))
}

// Problem is one broken rule.
type Problem struct {
	File    string `json:"file"`
	Field   string `json:"field"` // a JSON pointer, "" for the whole file
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	f := p.Field
	if f == "" {
		f = "(file)"
	}
	return fmt.Sprintf("%s %s: %s (%s)", p.File, f, p.Message, p.Rule)
}
