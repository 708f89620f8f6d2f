package wasmexec

import (
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strconv"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/store/prefix"
	storetypes "cosmossdk.io/store/types"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	"github.com/cosmos/gogoproto/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vipharness/vipharness/localnet/devnode"
)

// Queries are wasmd's query service methods this node answers, with their REST routes.
func (e *Executor) Queries() []devnode.Query {
	return []devnode.Query{
		{
			Method: "/cosmwasm.wasm.v1.Query/SmartContractState",
			New:    func() proto.Message { return &wasmtypes.QuerySmartContractStateRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contract/{address}/smart/{query_data...}",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*wasmtypes.QuerySmartContractStateRequest)
				q.Address = r.PathValue("address")
				data, err := pathBytes(r.PathValue("query_data"))
				q.QueryData = data
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				return e.smart(c, r.(*wasmtypes.QuerySmartContractStateRequest))
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/RawContractState",
			New:    func() proto.Message { return &wasmtypes.QueryRawContractStateRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contract/{address}/raw/{query_data...}",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*wasmtypes.QueryRawContractStateRequest)
				q.Address = r.PathValue("address")
				data, err := pathBytes(r.PathValue("query_data"))
				q.QueryData = data
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				req := r.(*wasmtypes.QueryRawContractStateRequest)
				store := c.KVStore(wasmtypes.ModuleName)
				contract, err := contractAddr(c, req.Address)
				if err != nil {
					return nil, err
				}
				if loadContract(store, contract) == nil {
					return nil, wasmtypes.ErrNoSuchContractFn(req.Address).Wrapf("address %s", req.Address)
				}
				kv := prefix.NewStore(store, wasmtypes.GetContractStorePrefix(contract))
				return &wasmtypes.QueryRawContractStateResponse{Data: kv.Get(req.QueryData)}, nil
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/ContractInfo",
			New:    func() proto.Message { return &wasmtypes.QueryContractInfoRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contract/{address}",
			Bind: func(r *http.Request, req proto.Message) error {
				req.(*wasmtypes.QueryContractInfoRequest).Address = r.PathValue("address")
				return nil
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				req := r.(*wasmtypes.QueryContractInfoRequest)
				contract, err := contractAddr(c, req.Address)
				if err != nil {
					return nil, err
				}
				info := loadContract(c.KVStore(wasmtypes.ModuleName), contract)
				if info == nil {
					return nil, wasmtypes.ErrNotFound.Wrapf("contract %s", req.Address)
				}
				return &wasmtypes.QueryContractInfoResponse{Address: req.Address, ContractInfo: *info}, nil
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/ContractHistory",
			New:    func() proto.Message { return &wasmtypes.QueryContractHistoryRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contract/{address}/history",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*wasmtypes.QueryContractHistoryRequest)
				q.Address = r.PathValue("address")
				var err error
				q.Pagination, err = devnode.BindPageRequest(r.URL.Query())
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				return contractHistory(c, r.(*wasmtypes.QueryContractHistoryRequest))
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/AllContractState",
			New:    func() proto.Message { return &wasmtypes.QueryAllContractStateRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contract/{address}/state",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*wasmtypes.QueryAllContractStateRequest)
				q.Address = r.PathValue("address")
				var err error
				q.Pagination, err = devnode.BindPageRequest(r.URL.Query())
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				return allContractState(c, r.(*wasmtypes.QueryAllContractStateRequest))
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/ContractsByCreator",
			New:    func() proto.Message { return &wasmtypes.QueryContractsByCreatorRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/contracts/creator/{creator_address}",
			Bind: func(r *http.Request, req proto.Message) error {
				q := req.(*wasmtypes.QueryContractsByCreatorRequest)
				q.CreatorAddress = r.PathValue("creator_address")
				var err error
				q.Pagination, err = devnode.BindPageRequest(r.URL.Query())
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				return contractsByCreator(c, r.(*wasmtypes.QueryContractsByCreatorRequest))
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/ContractsByCode",
			New:    func() proto.Message { return &wasmtypes.QueryContractsByCodeRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/code/{code_id}/contracts",
			Bind: func(r *http.Request, req proto.Message) error {
				id, err := pathUint(r.PathValue("code_id"), "code_id")
				req.(*wasmtypes.QueryContractsByCodeRequest).CodeId = id
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				req := r.(*wasmtypes.QueryContractsByCodeRequest)
				if req.CodeId == 0 {
					return nil, errorsmod.Wrap(wasmtypes.ErrInvalid, "code id")
				}
				it := storetypes.KVStorePrefixIterator(c.KVStore(wasmtypes.ModuleName), wasmtypes.GetContractByCodeIDSecondaryIndexPrefix(req.CodeId))
				defer it.Close()
				contracts := []string{}
				for ; it.Valid(); it.Next() {
					key := it.Key()
					addr, err := c.Addresses.BytesToString(key[len(key)-wasmtypes.ContractAddrLen:])
					if err != nil {
						return nil, status.Error(codes.Internal, err.Error())
					}
					contracts = append(contracts, addr)
				}
				return &wasmtypes.QueryContractsByCodeResponse{Contracts: contracts, Pagination: &query.PageResponse{Total: uint64(len(contracts))}}, nil
			},
		},
		{
			// Every stored code, oldest first, in one page: a deployer looks its code up by
			// checksum before storing it again.
			Method: "/cosmwasm.wasm.v1.Query/Codes",
			New:    func() proto.Message { return &wasmtypes.QueryCodesRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/code",
			Bind:   func(*http.Request, proto.Message) error { return nil },
			Handle: func(c *devnode.Context, _ proto.Message) (proto.Message, error) {
				it := storetypes.KVStorePrefixIterator(c.KVStore(wasmtypes.ModuleName), wasmtypes.CodeKeyPrefix)
				defer it.Close()
				infos := []wasmtypes.CodeInfoResponse{}
				for ; it.Valid(); it.Next() {
					var info wasmtypes.CodeInfo
					mustUnmarshal(it.Value(), &info)
					id := binary.BigEndian.Uint64(it.Key()[len(wasmtypes.CodeKeyPrefix):])
					infos = append(infos, wasmtypes.CodeInfoResponse{CodeID: id, Creator: info.Creator, DataHash: info.CodeHash, InstantiatePermission: info.InstantiateConfig})
				}
				return &wasmtypes.QueryCodesResponse{CodeInfos: infos, Pagination: &query.PageResponse{Total: uint64(len(infos))}}, nil
			},
		},
		{
			Method: "/cosmwasm.wasm.v1.Query/Code",
			New:    func() proto.Message { return &wasmtypes.QueryCodeRequest{} },
			HTTP:   "GET /cosmwasm/wasm/v1/code/{code_id}",
			Bind: func(r *http.Request, req proto.Message) error {
				id, err := pathUint(r.PathValue("code_id"), "code_id")
				req.(*wasmtypes.QueryCodeRequest).CodeId = id
				return err
			},
			Handle: func(c *devnode.Context, r proto.Message) (proto.Message, error) {
				req := r.(*wasmtypes.QueryCodeRequest)
				if req.CodeId == 0 {
					return nil, errorsmod.Wrap(wasmtypes.ErrInvalid, "code id")
				}
				info := loadCode(c.KVStore(wasmtypes.ModuleName), req.CodeId)
				if info == nil {
					return nil, wasmtypes.ErrNoSuchCodeFn(req.CodeId).Wrapf("code id %d", req.CodeId)
				}
				code, err := e.vm.GetCode(info.CodeHash)
				if err != nil {
					return nil, errorsmod.Wrap(err, "loading wasm code")
				}
				return &wasmtypes.QueryCodeResponse{
					CodeInfoResponse: &wasmtypes.CodeInfoResponse{CodeID: req.CodeId, Creator: info.Creator, DataHash: info.CodeHash, InstantiatePermission: info.InstantiateConfig},
					Data:             code,
				}, nil
			},
		},
	}
}

// contractHistory is wasmd's ContractHistory: the code history entries of a contract (none for
// an address that holds no contract), key-paginated; offset and count_total are refused.
func contractHistory(c *devnode.Context, req *wasmtypes.QueryContractHistoryRequest) (proto.Message, error) {
	contract, err := contractAddr(c, req.Address)
	if err != nil {
		return nil, err
	}
	page := req.Pagination
	if page == nil {
		page = &query.PageRequest{Limit: query.DefaultLimit}
	}
	if page.Offset != 0 || page.CountTotal {
		return nil, status.Error(codes.InvalidArgument, "offset and count queries not supported")
	}
	if page.Limit == 0 || page.Limit > 100 {
		page.Limit = 100
	}
	entries := []wasmtypes.ContractCodeHistoryEntry{}
	store := prefix.NewStore(c.KVStore(wasmtypes.ModuleName), wasmtypes.GetContractCodeHistoryElementPrefix(contract))
	res, err := query.FilteredPaginate(store, page, func(_, value []byte, accumulate bool) (bool, error) {
		if accumulate {
			var e wasmtypes.ContractCodeHistoryEntry
			if err := proto.Unmarshal(value, &e); err != nil {
				return false, status.Error(codes.Internal, err.Error())
			}
			entries = append(entries, e)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &wasmtypes.QueryContractHistoryResponse{Entries: entries, Pagination: res}, nil
}

// pageLimits applies wasmd's ensurePaginationParams: a default page of 100, at most 100.
func pageLimits(page *query.PageRequest) *query.PageRequest {
	if page == nil {
		page = &query.PageRequest{}
	}
	if page.Limit == 0 || page.Limit > 100 {
		page.Limit = 100
	}
	return page
}

// allContractState is wasmd's AllContractState: a contract's raw key/value models, paginated;
// an address without a contract is refused as wasmd refuses it.
func allContractState(c *devnode.Context, req *wasmtypes.QueryAllContractStateRequest) (proto.Message, error) {
	contract, err := contractAddr(c, req.Address)
	if err != nil {
		return nil, err
	}
	store := c.KVStore(wasmtypes.ModuleName)
	if loadContract(store, contract) == nil {
		return nil, wasmtypes.ErrNoSuchContractFn(req.Address).Wrapf("address %s", req.Address)
	}
	models := []wasmtypes.Model{}
	kv := prefix.NewStore(store, wasmtypes.GetContractStorePrefix(contract))
	res, err := query.Paginate(kv, pageLimits(req.Pagination), func(key, value []byte) error {
		models = append(models, wasmtypes.Model{Key: key, Value: value})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &wasmtypes.QueryAllContractStateResponse{Models: models, Pagination: res}, nil
}

// contractsByCreator is wasmd's ContractsByCreator: the contracts an account instantiated,
// oldest first, from the creator index instantiate writes.
func contractsByCreator(c *devnode.Context, req *wasmtypes.QueryContractsByCreatorRequest) (proto.Message, error) {
	creator, err := contractAddr(c, req.CreatorAddress)
	if err != nil {
		return nil, err
	}
	contracts := []string{}
	store := prefix.NewStore(c.KVStore(wasmtypes.ModuleName), wasmtypes.GetContractsByCreatorPrefix(creator))
	res, err := query.FilteredPaginate(store, pageLimits(req.Pagination), func(key, _ []byte, accumulate bool) (bool, error) {
		if accumulate {
			addr, err := c.Addresses.BytesToString(key[wasmtypes.AbsoluteTxPositionLen:])
			if err != nil {
				return false, status.Error(codes.Internal, err.Error())
			}
			contracts = append(contracts, addr)
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &wasmtypes.QueryContractsByCreatorResponse{ContractAddresses: contracts, Pagination: res}, nil
}

// smart runs a contract query as wasmd's SmartContractState does.
func (e *Executor) smart(c *devnode.Context, req *wasmtypes.QuerySmartContractStateRequest) (proto.Message, error) {
	if err := req.QueryData.ValidateBasic(); err != nil {
		return nil, status.Error(codes.InvalidArgument, "invalid query data")
	}
	contract, err := contractAddr(c, req.Address)
	if err != nil {
		return nil, err
	}
	store := c.KVStore(wasmtypes.ModuleName)
	_, code, err := contractInstance(store, contract, req.Address)
	if err != nil {
		return nil, err
	}
	c.GasMeter.ConsumeGas(e.gas.SetupContractCost(false, len(req.QueryData)), "Loading CosmWasm module: query")
	kv := kvAdapter{prefix.NewStore(store, wasmtypes.GetContractStorePrefix(contract))}
	res, gasUsed, qErr := e.vm.Query(code.CodeHash, e.env(c, req.Address), req.QueryData, kv, goAPI(c), noQuerier{}, e.meter(c), e.runtimeGas(c), e.deser)
	e.consumeRuntimeGas(c, gasUsed)
	if qErr != nil {
		return nil, errorsmod.Wrap(wasmtypes.ErrVMError, qErr.Error())
	}
	if res.Err != "" {
		return nil, errorsmod.Wrap(wasmtypes.ErrQueryFailed, res.Err)
	}
	return &wasmtypes.QuerySmartContractStateResponse{Data: res.Ok}, nil
}

func contractAddr(c *devnode.Context, s string) ([]byte, error) {
	if s == "" {
		return nil, status.Error(codes.InvalidArgument, "empty address")
	}
	bz, err := c.Addresses.StringToBytes(s)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return bz, nil
}

// pathBytes decodes a bytes path parameter as the gateway does (standard, then URL-safe base64).
func pathBytes(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, status.Errorf(codes.InvalidArgument, "type mismatch, parameter: query_data, error: illegal base64 data")
}

func pathUint(s, name string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, status.Errorf(codes.InvalidArgument, "type mismatch, parameter: %s, error: %v", name, err)
	}
	return v, nil
}
