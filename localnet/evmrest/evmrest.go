// Package evmrest is the Cosmos REST face of an EVM rollup as minievm serves it beside its
// JSON-RPC: node_info naming minievm, the bech32 prefix, the node's minimum gas price and
// the OPinit child module's params and Initia's gas price routes (localnet/feeroutes, as the
// dev nodes serve them), balances of the fee denom read from the EVM, and accounts (number,
// sequence = EVM nonce), which a wallet signing a Cosmos tx for the rollup needs. It lets
// the Cosmos-side tools of a rollup team (registry entry, preflight, VM detection, wallets'
// fee discovery) run against a local EVM chain that is not a minievm underneath.
package evmrest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"cosmossdk.io/math"
	cmtp2p "github.com/cometbft/cometbft/proto/tendermint/p2p"
	cmtservice "github.com/cosmos/cosmos-sdk/client/grpc/cmtservice"
	nodeservice "github.com/cosmos/cosmos-sdk/client/grpc/node"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	"github.com/cosmos/gogoproto/proto"
	"github.com/ethereum/go-ethereum/common"

	"github.com/vipharness/vipharness/localnet/cometrpc"
	"github.com/vipharness/vipharness/localnet/feeroutes"
)

// Prefix is the bech32 prefix of every Initia rollup.
const Prefix = "init"

// Chain is what the face reads from the EVM.
type Chain interface {
	BalanceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (*big.Int, error)
	NonceAt(ctx context.Context, account common.Address, blockNumber *big.Int) (uint64, error)
}

// Info describes the rollup.
type Info struct {
	ChainID  string // the Cosmos chain id (node_info network)
	Version  string // application_version.version
	FeeDenom string
	// MinGasPrice is the minimum gas price in FeeDenom; the fee denom's amounts are the EVM's
	// own units (wei), so this is the EVM gas price floor as a decimal.
	MinGasPrice math.LegacyDec
	CometRPC    string // node_info other.rpc_address
	// Sequencer is the validator opchild lists (nil: no validators route).
	Sequencer *feeroutes.Validator
	// Supply is the fee denom's total supply (nil: no supply routes).
	Supply func(ctx context.Context) (*big.Int, error)
	// Bridge is the OPinit bridge the rollup is registered under (nil: none); the
	// sequencer's operator is its executor, as a minievm's genesis names it.
	Bridge *feeroutes.Bridge
}

// Server serves the face on 127.0.0.1.
type Server struct {
	url   string
	srv   *http.Server
	info  Info
	chain Chain
	reg   codectypes.InterfaceRegistry

	mu       sync.Mutex
	numbers  map[common.Address]uint64 // account numbers, handed out when first seen
	nextAcct uint64
}

// Start listens on an ephemeral 127.0.0.1 port.
func Start(info Info, chain Chain) (*Server, error) {
	if info.ChainID == "" || info.FeeDenom == "" {
		return nil, errors.New("evm rest face: chain id and fee denom are required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the evm rest face: %w", err)
	}
	s := &Server{url: "http://" + ln.Addr().String(), info: info, chain: chain, reg: codectypes.NewInterfaceRegistry(),
		numbers: map[common.Address]uint64{}, nextAcct: firstAccountNumber}
	authtypes.RegisterInterfaces(s.reg)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /cosmos/base/tendermint/v1beta1/node_info", s.nodeInfo)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/bech32", func(w http.ResponseWriter, _ *http.Request) {
		s.writeProto(w, &authtypes.Bech32PrefixResponse{Bech32Prefix: Prefix})
	})
	mux.HandleFunc("GET /cosmos/base/node/v1beta1/config", func(w http.ResponseWriter, _ *http.Request) {
		s.writeProto(w, &nodeservice.ConfigResponse{MinimumGasPrice: s.minGasPrice().String()})
	})
	// The auth module's parameters at minitiad init's genesis: the SDK's defaults.
	mux.HandleFunc("GET /cosmos/auth/v1beta1/params", func(w http.ResponseWriter, _ *http.Request) {
		s.writeProto(w, &authtypes.QueryParamsResponse{Params: authtypes.DefaultParams()})
	})
	mux.HandleFunc("GET /cosmos/bank/v1beta1/balances/{address}/by_denom", s.balance)
	mux.HandleFunc("GET /cosmos/auth/v1beta1/accounts/{address}", s.account)
	// The chain runs no Cosmos modules, so none has an account.
	mux.HandleFunc("GET /cosmos/auth/v1beta1/module_accounts", func(w http.ResponseWriter, _ *http.Request) {
		s.writeProto(w, &authtypes.QueryModuleAccountsResponse{Accounts: []*codectypes.Any{}})
	})
	feeroutes.RegisterWithParams(mux, func() sdk.DecCoins { return sdk.DecCoins{s.minGasPrice()} },
		func() (feeroutes.Params, error) { return s.opchildParams(), nil }, false)
	// No deposit ever comes to a rollup without a bridge: the next is opchild's first.
	opchild := feeroutes.Opchild{
		NextL1Sequence: func(*http.Request) (uint64, error) { return feeroutes.L1SequenceStart, nil },
		BridgeInfo:     func(*http.Request) (*feeroutes.BridgeInfo, error) { return s.bridgeInfo(), nil },
	}
	if info.Sequencer != nil {
		opchild.Validators = func(*http.Request) ([]feeroutes.Validator, error) { return s.validators(), nil }
	}
	feeroutes.RegisterOpchild(mux, opchild)
	s.registerWallet(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, http.StatusNotImplemented, 12, "Not Implemented")
	})
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the REST base URL.
func (s *Server) URL() string { return s.url }

// Close stops serving; past 2 s of grace, connections are cut off.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		if cerr := s.srv.Close(); cerr != nil {
			return fmt.Errorf("stop evm rest face: %w", cerr)
		}
	}
	return nil
}

func (s *Server) minGasPrice() sdk.DecCoin {
	return sdk.NewDecCoinFromDec(s.info.FeeDenom, s.info.MinGasPrice)
}

func (s *Server) nodeInfo(w http.ResponseWriter, _ *http.Request) {
	s.writeProto(w, &cmtservice.GetNodeInfoResponse{
		DefaultNodeInfo: &cmtp2p.DefaultNodeInfo{Network: s.info.ChainID, Moniker: "minitia", Version: cometrpc.NodeVersion,
			ListenAddr: "tcp://127.0.0.1:26656",
			Other:      cmtp2p.DefaultNodeInfoOther{TxIndex: "on", RPCAddress: strings.Replace(s.info.CometRPC, "http://", "tcp://", 1)}},
		ApplicationVersion: &cmtservice.VersionInfo{Name: "minievm", AppName: "minitiad", Version: s.info.Version,
			GoVersion: runtime.Version(), CosmosSdkVersion: "v0.53.6"},
	})
}

// balance answers the fee denom's balance of an account (bech32 init1... or 0x hex) from the
// EVM, as minievm keeps the fee token's balances in the EVM.
func (s *Server) balance(w http.ResponseWriter, r *http.Request) {
	addr, err := parseAccount(r.PathValue("address"))
	if err != nil {
		writeStatus(w, http.StatusBadRequest, 3, "invalid address: "+err.Error())
		return
	}
	denom := r.URL.Query().Get("denom")
	if err := sdk.ValidateDenom(denom); err != nil {
		writeStatus(w, http.StatusBadRequest, 3, fmt.Sprintf("invalid denom: %v", err))
		return
	}
	coin, err := s.balanceOf(r.Context(), addr, denom)
	if err != nil {
		writeInternal(w, err)
		return
	}
	s.writeProto(w, &banktypes.QueryBalanceResponse{Balance: &coin})
}

// firstAccountNumber follows the module accounts a minitia creates at genesis.
const firstAccountNumber = 10

// account answers an EVM account as minievm's auth module shows it: a BaseAccount whose
// sequence is the EVM nonce (minievm keeps the two the same). An address the chain has not
// seen (no nonce, no balance) is not found, as on a real chain; the others are numbered in
// the order they are first asked for, and keep their number for the face's life.
func (s *Server) account(w http.ResponseWriter, r *http.Request) {
	addr, err := parseAccount(r.PathValue("address"))
	if err != nil {
		// auth answers a bad address as an unknown error (code 2, HTTP 500), as on a minievm.
		writeStatus(w, http.StatusInternalServerError, 2, err.Error())
		return
	}
	acct, err := s.accountOf(r.Context(), addr)
	switch {
	case errors.Is(err, errAccountNotFound):
		writeStatus(w, http.StatusNotFound, 5, err.Error())
	case err != nil:
		writeInternal(w, err)
	default:
		s.writeProto(w, acct)
	}
}

var errAccountNotFound = errors.New("not found")

// accountOf is addr's account (errAccountNotFound: the chain has not seen it).
func (s *Server) accountOf(ctx context.Context, addr common.Address) (*authtypes.QueryAccountResponse, error) {
	bech, _ := bech32.ConvertAndEncode(Prefix, addr.Bytes())
	nonce, err := s.chain.NonceAt(ctx, addr, nil)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	num, known := s.numbers[addr]
	s.mu.Unlock()
	if !known && nonce == 0 {
		bal, err := s.chain.BalanceAt(ctx, addr, nil)
		if err != nil {
			return nil, err
		}
		if bal.Sign() == 0 {
			return nil, fmt.Errorf("account %s %w", bech, errAccountNotFound)
		}
	}
	if !known {
		s.mu.Lock()
		if num, known = s.numbers[addr]; !known {
			num = s.nextAcct
			s.numbers[addr] = num
			s.nextAcct++
		}
		s.mu.Unlock()
	}
	acct, err := codectypes.NewAnyWithValue(&authtypes.BaseAccount{Address: bech, AccountNumber: num, Sequence: nonce})
	if err != nil {
		return nil, err
	}
	return &authtypes.QueryAccountResponse{Account: acct}, nil
}

func parseAccount(a string) (common.Address, error) {
	// bech32 only, as minievm's address codec reads a path's address: a 0x one fails as any
	// string that is not bech32 does ("string not all lowercase or all uppercase" when
	// checksummed, else "invalid separator index" or a checksum).
	hrp, bz, err := bech32.DecodeAndConvert(a)
	if err != nil {
		return common.Address{}, err // its words begin "decoding bech32 failed"
	}
	if hrp != Prefix || len(bz) != common.AddressLength {
		return common.Address{}, fmt.Errorf("address %s: want an %s1 account of 20 bytes", a, Prefix)
	}
	return common.BytesToAddress(bz), nil
}

func (s *Server) writeProto(w http.ResponseWriter, m proto.Message) {
	bz, err := codec.ProtoMarshalJSON(m, s.reg)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, 13, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(bz)
}

// writeStatus writes an error as the gRPC gateway does: {"code","message","details"}.
func writeStatus(w http.ResponseWriter, httpCode, grpcCode int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(httpCode)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": grpcCode, "message": msg, "details": []any{}})
}
