package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/vipharness/vipharness/deployer/registration/probe"
	"github.com/vipharness/vipharness/deployer/registration/registry/jsonfmt"
	"github.com/vipharness/vipharness/deployer/vip"
	_ "github.com/vipharness/vipharness/deployer/vm"
)

// Live is what the running rollup reports about itself.
type Live struct {
	ChainID      string
	EVMChainID   uint64 // 0 when the rollup has no EVM
	Bech32Prefix string
	Minitia      string // node_info application_version.name: minievm, minimove, miniwasm
	Version      string // node_info application_version.version
	GasPrices    sdk.DecCoins
}

// Inputs are what the operator adds.
type Inputs struct {
	Network     string // mainnet, testnet or devnet
	Name        string // chain_name and folder: lower-case letters and digits
	PrettyName  string
	Description string
	Website     string

	RPC, REST, GRPC, JSONRPC, JSONRPCWS, Indexer []string

	OpBridgeID  uint64
	OpDenoms    []string // L1 denoms the bridge carries, e.g. uinit
	ExecutorURI string
	Logo        string // https URL of a PNG; a registry images/ URL when the file is added there

	// The fee token as an asset (the first fee token; others get their denom as symbol).
	AssetSymbol   string
	AssetName     string
	AssetDecimals int

	// Profile.
	Category, Summary, Color, Twitter, Status string
	VIPActions                                []Action
}

// Entry is a built registry entry.
type Entry struct {
	Chain     Chain
	Assetlist Assetlist
	Profile   Profile
}

var (
	chainNameRE = regexp.MustCompile(`^[a-z0-9]+$`)
	logoRE      = regexp.MustCompile(`^https://.+\.png$`)
)

// The profile rules of the registry's profile.schema.json, refused here before anything is
// read or written.
var (
	// Categories are the profile's category values.
	Categories = []string{"DeFi", "Social", "NFT", "Gaming", "Portfolio", "AI", "Consumer", "Others"}
	// Statuses are the profile's status values.
	Statuses = []string{"live", "upcoming", "hidden"}
)

// MaxDescription is the longest profile description, in characters.
const MaxDescription = 140

// InputError is an input Build cannot build from; Input names it (network, name,
// pretty-name, op-bridge-id, op-denoms, asset-decimals, or chain-id and gas-prices for what
// the rollup reported).
type InputError struct {
	Input string
	Err   error
}

func (e *InputError) Error() string { return e.Input + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Check refuses the inputs that do not depend on the rollup (each error an *InputError), so
// a command can refuse them before it reads anything.
func (in Inputs) Check() error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &InputError{Input: field, Err: fmt.Errorf(format, args...)})
	}
	switch in.Network {
	case "mainnet", "testnet", "devnet":
	default:
		fail("network", "%q: want mainnet, testnet or devnet", in.Network)
	}
	if !chainNameRE.MatchString(in.Name) {
		fail("name", "%q: want lower-case letters and digits (it is the registry folder)", in.Name)
	}
	if strings.TrimSpace(in.PrettyName) == "" {
		fail("pretty-name", "empty: the name users see")
	}
	if len(in.OpDenoms) == 0 {
		fail("op-denoms", "empty: the L1 denoms the bridge carries, e.g. uinit")
	}
	if in.AssetDecimals < 0 || in.AssetDecimals > 18 {
		fail("asset-decimals", "%d: want 0 to 18", in.AssetDecimals)
	}
	if !slices.Contains(Categories, in.Category) {
		fail("category", "%q: the profile needs one of %s", in.Category, strings.Join(Categories, ", "))
	}
	switch n := utf8.RuneCountInString(in.Description); {
	case strings.TrimSpace(in.Description) == "":
		fail("description", "empty: the profile needs a description of at most %d characters", MaxDescription)
	case n > MaxDescription:
		fail("description", "%d characters: the profile allows at most %d", n, MaxDescription)
	}
	if !slices.Contains(Statuses, in.Status) {
		fail("status", "%q: want one of %s", in.Status, strings.Join(Statuses, ", "))
	}
	if in.Logo == "" {
		fail("logo", "empty: the profile needs the https URL of a PNG logo")
	} else if !logoRE.MatchString(in.Logo) {
		fail("logo", "%q: want an https URL of a .png file", in.Logo)
	}
	return errors.Join(errs...)
}

// Build makes the entry from the live rollup and the inputs. It refuses inputs it cannot
// build from (each an *InputError); the rules the registry checks are Validate's.
func Build(live Live, in Inputs) (Entry, error) {
	errs := []error{in.Check()}
	fail := func(field, format string, args ...any) {
		errs = append(errs, &InputError{Input: field, Err: fmt.Errorf(format, args...)})
	}
	if live.ChainID == "" {
		fail("chain-id", "the rollup reported no chain id")
	}
	if len(live.GasPrices) == 0 {
		fail("gas-prices", "the rollup reported no minimum gas price")
	}
	if in.OpBridgeID == 0 {
		fail("op-bridge-id", "0: the rollup's OPinit bridge id (from the L1) is required")
	}
	// Only a minievm serves EVM JSON-RPC; the registry's Move and Wasm entries carry none.
	if !vip.ServesJSONRPC(live.Minitia) {
		if len(endpoints(in.JSONRPC)) > 0 {
			fail("public-json-rpc", "the rollup is %s, not minievm: it has no EVM JSON-RPC to list", minitiaName(live.Minitia))
		}
		if len(endpoints(in.JSONRPCWS)) > 0 {
			fail("public-json-rpc-ws", "the rollup is %s, not minievm: it has no EVM JSON-RPC websocket to list", minitiaName(live.Minitia))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Entry{}, err
	}

	folder := path.Join(NetworkFolder(in.Network), in.Name)
	c := Chain{
		Schema:       "../../chain.schema.json",
		ChainName:    in.Name,
		PrettyName:   in.PrettyName,
		ChainID:      live.ChainID,
		EVMChainID:   live.EVMChainID,
		Website:      in.Website,
		Description:  in.Description,
		Bech32Prefix: live.Bech32Prefix,
		NetworkType:  in.Network,
		APIs: APIs{RPC: endpoints(in.RPC), REST: endpoints(in.REST), GRPC: endpoints(in.GRPC),
			JSONRPC: endpoints(in.JSONRPC), JSONRPCWS: endpoints(in.JSONRPCWS), Indexer: endpoints(in.Indexer)},
		KeyAlgos: []string{"initia_ethsecp256k1", "secp256k1"},
		Slip44:   60,
		Metadata: &Metadata{
			OpBridgeID:  strconv.FormatUint(in.OpBridgeID, 10),
			OpDenoms:    in.OpDenoms,
			ExecutorURI: in.ExecutorURI,
			Assetlist:   RawBase + folder + "/assetlist.json",
		},
	}
	if c.APIs.RPC == nil {
		c.APIs.RPC = []Endpoint{}
	}
	if c.APIs.REST == nil {
		c.APIs.REST = []Endpoint{}
	}
	if live.Minitia != "" {
		c.Metadata.Minitia = &Minitia{Type: live.Minitia, Version: live.Version}
		if cb := codebase(live.Minitia, live.Version); cb != nil {
			c.Codebase = cb
		}
	}
	if in.Logo != "" {
		c.Images = []Image{{PNG: in.Logo}}
		c.LogoURIs = &Logo{PNG: in.Logo}
	}

	a := Assetlist{Schema: "../../assetlist.schema.json", ChainName: in.Name}
	for i, p := range live.GasPrices {
		c.Fees.FeeTokens = append(c.Fees.FeeTokens, FeeToken{Denom: p.Denom, FixedMinGasPrice: json.Number(decimalText(p.Amount.String()))})
		asset := Asset{Base: p.Denom, Display: p.Denom, Name: p.Denom, Symbol: p.Denom, DenomUnits: []DenomUnit{{Denom: p.Denom, Exponent: 0}}, TypeAsset: "sdk.coin"}
		if i == 0 {
			if in.AssetSymbol != "" {
				asset.Symbol, asset.Name = in.AssetSymbol, in.AssetSymbol
			}
			if in.AssetName != "" {
				asset.Name = in.AssetName
			}
			if in.AssetDecimals > 0 {
				asset.Display = asset.Symbol
				asset.DenomUnits = append(asset.DenomUnits, DenomUnit{Denom: asset.Symbol, Exponent: in.AssetDecimals})
			}
			if in.Logo != "" {
				asset.Images = []Image{{PNG: in.Logo}}
				asset.LogoURIs = &Logo{PNG: in.Logo}
			}
		}
		if addr, ok := strings.CutPrefix(p.Denom, "evm/"); ok {
			asset.TypeAsset, asset.Address = "erc20", "0x"+addr
		}
		// A fee token that is an L1 denom bridged over this rollup's OPinit bridge.
		for _, d := range in.OpDenoms {
			if p.Denom == L2Denom(in.OpBridgeID, d) {
				asset.Traces = []Trace{{Type: "op", Counterparty: Counterparty{ChainName: "initia", BaseDenom: d}, Chain: TraceChain{BridgeID: strconv.FormatUint(in.OpBridgeID, 10)}}}
			}
		}
		a.Assets = append(a.Assets, asset)
	}

	prof := Profile{Schema: "../profile.schema.json", Name: in.Name, PrettyName: in.PrettyName, Category: in.Category, L2: true,
		Description: in.Description, Summary: in.Summary, Logo: in.Logo, Color: in.Color, Status: in.Status}
	if len(in.VIPActions) > 0 {
		prof.VIP = &VIP{Actions: in.VIPActions}
	}
	if in.Website != "" || in.Twitter != "" {
		prof.Social = &Social{Website: in.Website, Twitter: in.Twitter}
	}
	return Entry{Chain: c, Assetlist: a, Profile: prof}, nil
}

func minitiaName(m string) string {
	if m == "" {
		return "of no known minitia type"
	}
	return "a " + m
}

func endpoints(addrs []string) []Endpoint {
	var out []Endpoint
	for _, a := range addrs {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, Endpoint{Address: a})
		}
	}
	return out
}

// decimalText trims a decimal's trailing zeros: "0.150000000000000000" -> "0.15".
func decimalText(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// codebase points at the minitia's git repository and, for a release version, its binaries.
func codebase(minitia, version string) *Codebase {
	cb := &Codebase{GitRepo: "https://github.com/initia-labs/" + minitia, RecommendedVersion: version}
	if _, ok := vip.ByMinitia(minitia); !ok {
		return nil
	}
	for _, p := range [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}} {
		r, err := probe.ReleaseFor(minitia, version, p[0], p[1])
		if err != nil {
			return cb // a local build: no release binaries to point at
		}
		if cb.Binaries == nil {
			cb.Binaries = map[string]string{}
		}
		cb.Binaries[p[0]+"/"+p[1]] = r.URL
	}
	return cb
}

// Files is an entry's files by their path inside the registry.
type Files map[string][]byte

// Paths of an entry's files inside the registry.
func ChainPath(network, name string) string {
	return path.Join(NetworkFolder(network), name, "chain.json")
}
func AssetlistPath(network, name string) string {
	return path.Join(NetworkFolder(network), name, "assetlist.json")
}
func ProfilePath(name string) string { return path.Join("profiles", name+".json") }

// Files prints the entry as the registry's prettier check wants it.
func (e Entry) Files() (Files, error) {
	out := Files{}
	for p, v := range map[string]any{
		ChainPath(e.Chain.NetworkType, e.Chain.ChainName):     e.Chain,
		AssetlistPath(e.Chain.NetworkType, e.Chain.ChainName): e.Assetlist,
		ProfilePath(e.Chain.ChainName):                        e.Profile,
	} {
		b, err := jsonfmt.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("print %s: %w", p, err)
		}
		out[p] = b
	}
	return out, nil
}
