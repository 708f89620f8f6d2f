package router

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	api "github.com/vipharness/vipharness/bindings/router"
)

// Message type URLs the stand-in emits.
const (
	msgTransferURL      = "/ibc.applications.transfer.v1.MsgTransfer"
	msgInitiateDeposit  = "/opinit.ophost.v1.MsgInitiateTokenDeposit"
	msgInitiateWithdraw = "/opinit.opchild.v1.MsgInitiateTokenWithdrawal"
	defaultTimeoutSecs  = 300
	maxTimeoutSecs      = 7 * 24 * 3600
)

// bridgeTypes are the BridgeType values the API knows; the stand-in routes IBC and OPINIT.
var bridgeTypes = map[string]bool{
	"IBC": true, "AXELAR": true, "CCTP": true, "HYPERLANE": true, "OPINIT": true,
	"GO_FAST": true, "STARGATE": true, "LAYER_ZERO": true, "EUREKA": true,
}

var (
	amountRe   = regexp.MustCompile(`^[1-9][0-9]{0,77}$`)
	decimalRe  = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,18})?$`)
	maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
)

// initiateTransfer(bytes32 routeId, string receiver, string memo) is the calldata of the
// evm_tx of a route from an EVM chain.
var (
	initiateSelector = crypto.Keccak256([]byte("initiateTransfer(bytes32,string,string)"))[:4]
	initiateArgs     = func() abi.Arguments {
		b32, _ := abi.NewType("bytes32", "", nil)
		str, _ := abi.NewType("string", "", nil)
		return abi.Arguments{{Name: "routeId", Type: b32}, {Name: "receiver", Type: str}, {Name: "memo", Type: str}}
	}()
)

func checkAmount(field, v string) (*big.Int, *apiErr) {
	if v == "" {
		return nil, badField(field, "is required")
	}
	if !amountRe.MatchString(v) {
		return nil, badField(field, "must be a positive integer in base units")
	}
	n, _ := new(big.Int).SetString(v, 10)
	if n.Cmp(maxUint256) > 0 {
		return nil, badField(field, "exceeds 2^256-1")
	}
	return n, nil
}

func (s *Server) checkAsset(chainField, denomField, chainID, denom string) (*Chain, *apiErr) {
	if chainID == "" {
		return nil, badField(chainField, "is required")
	}
	c, ok := s.ix.chains[chainID]
	if !ok {
		return nil, badField(chainField, fmt.Sprintf("unknown chain %q", chainID))
	}
	if denom == "" {
		return nil, badField(denomField, "is required")
	}
	if _, ok := s.ix.assets[[2]string{chainID, denom}]; !ok {
		return nil, badField(denomField, fmt.Sprintf("%q is not an asset of chain %s", denom, chainID))
	}
	return c, nil
}

// checkAddress accepts 0x-hex on EVM chains and bech32 with the chain's prefix on Cosmos
// chains.
func checkAddress(field string, c *Chain, addr string) *apiErr {
	if addr == "" {
		return badField(field, "is required")
	}
	if c.ChainType == ChainEVM {
		if !common.IsHexAddress(addr) || !strings.HasPrefix(addr, "0x") {
			return badField(field, fmt.Sprintf("%q is not a 0x-hex address for EVM chain %s", addr, c.ChainID))
		}
		return nil
	}
	hrp, b, err := bech32.DecodeAndConvert(addr)
	if err != nil || hrp != c.Bech32Prefix || (len(b) != 20 && len(b) != 32) {
		return badField(field, fmt.Sprintf("%q is not a bech32 %s1... address for chain %s", addr, c.Bech32Prefix, c.ChainID))
	}
	return nil
}

func (s *Server) handleRoute(r *http.Request) (any, *apiErr) {
	var req api.RouteRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	if _, e := s.checkAsset("source_asset_chain_id", "source_asset_denom", req.SourceAssetChainID, req.SourceAssetDenom); e != nil {
		return nil, e
	}
	if _, e := s.checkAsset("dest_asset_chain_id", "dest_asset_denom", req.DestAssetChainID, req.DestAssetDenom); e != nil {
		return nil, e
	}
	if req.SourceAssetChainID == req.DestAssetChainID && req.SourceAssetDenom == req.DestAssetDenom {
		return nil, badField("dest_asset_denom", "is the source asset; nothing to route")
	}
	var amountIn, amountOut *big.Int
	var e *apiErr
	switch {
	case req.AmountIn != "" && req.AmountOut != "":
		return nil, badField("amount_out", "give amount_in or amount_out, not both")
	case req.AmountOut != "":
		if amountOut, e = checkAmount("amount_out", req.AmountOut); e != nil {
			return nil, e
		}
	default:
		if amountIn, e = checkAmount("amount_in", req.AmountIn); e != nil {
			return nil, e
		}
	}
	f := routeFilter{opWithdraw: req.IsOPWithdraw != nil && *req.IsOPWithdraw}
	for i, b := range req.Bridges {
		if !bridgeTypes[b] {
			return nil, badField(fmt.Sprintf("bridges[%d]", i), fmt.Sprintf("%q is not a bridge type", b))
		}
		if f.types == nil {
			f.types = map[string]bool{}
		}
		f.types[b] = true
	}
	if v := req.CumulativeAffiliateFeeBPS; v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 0 || n > 10_000 {
			return nil, badField("cumulative_affiliate_fee_bps", "must be an integer in [0, 10000]")
		}
	}
	path := s.ix.findRoute(req.SourceAssetChainID, req.SourceAssetDenom, req.DestAssetChainID, req.DestAssetDenom, f)
	if path == nil {
		return nil, notFound(fmt.Sprintf("no route found from %s on %s to %s on %s", req.SourceAssetDenom, req.SourceAssetChainID, req.DestAssetDenom, req.DestAssetChainID))
	}
	if amountOut != nil {
		amountIn = amountInFor(path, amountOut)
		if amountIn.Cmp(maxUint256) > 0 {
			return nil, badField("amount_out", "needs more than 2^256-1 in")
		}
	}
	outs := amountsForward(path, amountIn)
	if outs[len(outs)-1].Sign() <= 0 {
		return nil, badField("amount_in", "is too small to cover the bridge fees")
	}
	return s.routeResponse(path, amountIn, outs), nil
}

func (s *Server) routeResponse(path []hop, in *big.Int, outs []*big.Int) *api.RouteResponse {
	first, last := path[0], path[len(path)-1]
	res := &api.RouteResponse{
		AmountIn:                      in.String(),
		AmountOut:                     outs[len(outs)-1].String(),
		SourceAssetDenom:              first.denomIn,
		SourceAssetChainID:            first.bridge.FromChainID,
		DestAssetDenom:                last.denomOut,
		DestAssetChainID:              last.bridge.ToChainID,
		ChainIDs:                      []string{first.bridge.FromChainID},
		EstimatedAmountOut:            outs[len(outs)-1].String(),
		TxsRequired:                   1,
		EstimatedFees:                 []json.RawMessage{},
		EstimatedRouteDurationSeconds: duration(path),
		RequiredOPHook:                requiresOPHook(path),
	}
	prev := in
	for i, h := range path {
		op := api.Operation{TxIndex: 0, AmountIn: prev.String(), AmountOut: outs[i].String()}
		b := h.bridge
		switch b.Type {
		case api.BridgeIBC:
			op.Transfer = &api.Transfer{
				Port: b.Port, Channel: b.Channel, FromChainID: b.FromChainID, ToChainID: b.ToChainID,
				PFMEnabled: s.ix.chains[b.FromChainID].PFMEnabled, SupportsMemo: true,
				DenomIn: h.denomIn, DenomOut: h.denomOut, BridgeID: api.BridgeIBC, DestDenom: h.denomOut,
			}
		case api.BridgeOPInit:
			op.OPInitTransfer = &api.OPInitTransfer{
				FromChainID: b.FromChainID, ToChainID: b.ToChainID, DenomIn: h.denomIn, DenomOut: h.denomOut,
				OPInitBridgeID: b.OPInitBridgeID, BridgeID: api.BridgeOPInit,
			}
			if b.Withdrawal {
				res.ExtraInfos = append(res.ExtraInfos, "OPinit withdrawals must be claimed on L1 after the finalization period")
			}
		}
		res.Operations = append(res.Operations, op)
		res.ChainIDs = append(res.ChainIDs, b.ToChainID)
		prev = outs[i]
	}
	res.RequiredChainAddresses = append([]string(nil), res.ChainIDs...)
	return res
}

// pathFromOps checks a route's operations against the graph and returns its hops.
func (s *Server) pathFromOps(ops []api.Operation, srcChain, srcDenom, dstChain, dstDenom string) ([]hop, *apiErr) {
	if len(ops) == 0 {
		return nil, badField("operations", "is required: pass the route's operations")
	}
	if len(ops) > maxHops {
		return nil, badField("operations", fmt.Sprintf("has %d operations; at most %d", len(ops), maxHops))
	}
	path := make([]hop, 0, len(ops))
	chain, denom := srcChain, srcDenom
	for i, op := range ops {
		f := fmt.Sprintf("operations[%d]", i)
		if op.TxIndex != 0 {
			return nil, badField(f+".tx_index", "must be 0: routes of this service are one transaction")
		}
		var (
			b                      *Bridge
			from, to, dIn, dOut, k string
		)
		switch {
		case op.Transfer != nil:
			t := op.Transfer
			k, from, to, dIn, dOut = f+".transfer", t.FromChainID, t.ToChainID, t.DenomIn, t.DenomOut
			if dOut == "" {
				dOut = t.DestDenom
			}
			for _, c := range s.ix.out[from] {
				if c.Type == api.BridgeIBC && c.Port == t.Port && c.Channel == t.Channel {
					b = c
				}
			}
			if b == nil {
				return nil, badField(k+".channel", fmt.Sprintf("no IBC channel %s/%s from chain %q", t.Port, t.Channel, from))
			}
		case op.OPInitTransfer != nil:
			t := op.OPInitTransfer
			k, from, to, dIn, dOut = f+".op_init_transfer", t.FromChainID, t.ToChainID, t.DenomIn, t.DenomOut
			for _, c := range s.ix.out[from] {
				if c.Type == api.BridgeOPInit && c.ToChainID == to && c.OPInitBridgeID == t.OPInitBridgeID {
					b = c
				}
			}
			if b == nil {
				return nil, badField(k+".op_init_bridge_id", fmt.Sprintf("no OPinit bridge %q from %q to %q", t.OPInitBridgeID, from, to))
			}
		default:
			return nil, badField(f, fmt.Sprintf("operation kind %q is not routed by this service (transfer, op_init_transfer)", op.Kind()))
		}
		switch {
		case from != chain:
			return nil, badField(k+".from_chain_id", fmt.Sprintf("is %q; the route is on %q here", from, chain))
		case to != b.ToChainID:
			return nil, badField(k+".to_chain_id", fmt.Sprintf("is %q; the bridge goes to %q", to, b.ToChainID))
		case dIn != denom:
			return nil, badField(k+".denom_in", fmt.Sprintf("is %q; the route carries %q here", dIn, denom))
		}
		out, ok := b.outDenom(dIn)
		if !ok || out != dOut {
			return nil, badField(k+".denom_out", fmt.Sprintf("is %q; the bridge delivers %q", dOut, out))
		}
		path = append(path, hop{bridge: b, denomIn: dIn, denomOut: dOut})
		chain, denom = b.ToChainID, dOut
	}
	if chain != dstChain || denom != dstDenom {
		return nil, badField("operations", fmt.Sprintf("end with %s on %s, not the destination asset %s on %s", denom, chain, dstDenom, dstChain))
	}
	return path, nil
}

// hookMsgs is the OP hook: the OPinit deposit the hook chain runs for the user once the
// earlier hop has arrived. The amount is "0", meaning whatever arrived: the op-hook request
// carries no amount.
func hookMsgs(h hop, sourceAddr, destAddr string) []api.CosmosMsg {
	msg, _ := json.Marshal(api.TokenDeposit{
		Sender: sourceAddr, BridgeID: h.bridge.OPInitBridgeID, To: destAddr,
		Amount: api.Coin{Denom: h.denomIn, Amount: "0"},
	})
	return []api.CosmosMsg{{MsgTypeURL: msgInitiateDeposit, Msg: string(msg)}}
}

func hookKey(chainID string, msgs []api.CosmosMsg) string {
	b, _ := json.Marshal(msgs)
	return chainID + "/" + hex.EncodeToString(crypto.Keccak256(b))
}

func (s *Server) handleOPHook(r *http.Request) (any, *apiErr) {
	var req api.OPHookRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	if req.SourceAddress == "" {
		return nil, badField("source_address", "is required")
	}
	if _, e := s.checkAsset("source_asset_chain_id", "source_asset_denom", req.SourceAssetChainID, req.SourceAssetDenom); e != nil {
		return nil, e
	}
	if req.DestAddress == "" {
		return nil, badField("dest_address", "is required")
	}
	dst, e := s.checkAsset("dest_asset_chain_id", "dest_asset_denom", req.DestAssetChainID, req.DestAssetDenom)
	if e != nil {
		return nil, e
	}
	path := s.ix.findRoute(req.SourceAssetChainID, req.SourceAssetDenom, req.DestAssetChainID, req.DestAssetDenom, routeFilter{})
	if path == nil {
		return nil, notFound(fmt.Sprintf("no route found from %s on %s to %s on %s", req.SourceAssetDenom, req.SourceAssetChainID, req.DestAssetDenom, req.DestAssetChainID))
	}
	hi := hookHop(path)
	if hi < 0 {
		return nil, &apiErr{status: http.StatusBadRequest, code: api.CodeFailedPrecondition,
			msg: fmt.Sprintf("the route from %s to %s needs no op hook", req.SourceAssetChainID, req.DestAssetChainID)}
	}
	hookChain := s.ix.chains[path[hi].bridge.FromChainID]
	if e := checkAddress("source_address", hookChain, req.SourceAddress); e != nil {
		return nil, e
	}
	if e := checkAddress("dest_address", dst, req.DestAddress); e != nil {
		return nil, e
	}
	msgs := hookMsgs(path[hi], req.SourceAddress, req.DestAddress)
	s.mu.Lock()
	s.hooks[hookKey(hookChain.ChainID, msgs)] = true
	s.mu.Unlock()
	return &api.OPHookResponse{ChainID: hookChain.ChainID, Hook: msgs}, nil
}

// plan is what a msgs request asked for; a tracked transaction finds its plan by the route
// id in its calldata.
type plan struct {
	id       string
	path     []hop
	chains   []string
	addrs    []string
	amountIn *big.Int
	outs     []*big.Int
	escrow   string
	hookHop  int    // the hop the signed hook runs, -1 for none
	hookSeq  uint64 // the signed hook's sequence on the hook chain
}

func (s *Server) handleMsgs(r *http.Request) (any, *apiErr) {
	var req api.MsgsRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	src, e := s.checkAsset("source_asset_chain_id", "source_asset_denom", req.SourceAssetChainID, req.SourceAssetDenom)
	if e != nil {
		return nil, e
	}
	if _, e := s.checkAsset("dest_asset_chain_id", "dest_asset_denom", req.DestAssetChainID, req.DestAssetDenom); e != nil {
		return nil, e
	}
	amountIn, e := checkAmount("amount_in", req.AmountIn)
	if e != nil {
		return nil, e
	}
	var amountOut *big.Int
	if req.AmountOut != "" {
		if amountOut, e = checkAmount("amount_out", req.AmountOut); e != nil {
			return nil, e
		}
	}
	path, e := s.pathFromOps(req.Operations, req.SourceAssetChainID, req.SourceAssetDenom, req.DestAssetChainID, req.DestAssetDenom)
	if e != nil {
		return nil, e
	}
	chains := []string{req.SourceAssetChainID}
	for _, h := range path {
		chains = append(chains, h.bridge.ToChainID)
	}
	if len(req.AddressList) != len(chains) {
		return nil, badField("address_list", fmt.Sprintf("has %d addresses; the route needs %d, one for each of %v", len(req.AddressList), len(chains), chains))
	}
	for i, a := range req.AddressList {
		if e := checkAddress(fmt.Sprintf("address_list[%d]", i), s.ix.chains[chains[i]], a); e != nil {
			return nil, e
		}
	}
	if v := req.SlippageTolerancePercent; v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if !decimalRe.MatchString(v) || err != nil || f > 100 {
			return nil, badField("slippage_tolerance_percent", "must be a decimal percentage in [0, 100]")
		}
	}
	timeout := int64(defaultTimeoutSecs)
	if v := req.TimeoutSeconds; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxTimeoutSecs {
			return nil, badField("timeout_seconds", fmt.Sprintf("must be an integer in [1, %d]", maxTimeoutSecs))
		}
		timeout = n
	}
	outs := amountsForward(path, amountIn)
	final := outs[len(outs)-1]
	if final.Sign() <= 0 {
		return nil, badField("amount_in", "is too small to cover the bridge fees")
	}
	if amountOut != nil && amountOut.Cmp(final) > 0 {
		return nil, badField("amount_out", fmt.Sprintf("is more than the route delivers (%s)", final))
	}
	hi := hookHop(path)
	var hookSeq uint64
	switch {
	case hi < 0 && req.SignedOPHook != nil:
		return nil, badField("signed_op_hook", "is set but the route has no OP hook")
	case hi >= 0:
		if hookSeq, e = s.checkSignedHook(r.Context(), req.SignedOPHook, path, hi, req.AddressList); e != nil {
			return nil, e
		}
	}

	p := &plan{path: path, chains: chains, addrs: req.AddressList, amountIn: amountIn, outs: outs, hookHop: hi, hookSeq: hookSeq}
	p.id = planID(req, path)
	if src.ChainType == ChainEVM {
		p.escrow = common.HexToAddress(path[0].bridge.EscrowAddress).Hex()
	}
	s.mu.Lock()
	if old, ok := s.plans[p.id]; ok {
		p = old
	} else {
		s.plans[p.id] = p
	}
	s.mu.Unlock()

	memo := forwardMemo(path, req.AddressList, req.SignedOPHook)
	ops := make([]int, len(path))
	for i := range ops {
		ops[i] = i
	}
	res := &api.MsgsResponse{MinAmountOut: final.String(), EstimatedFees: []json.RawMessage{}}
	if src.ChainType == ChainEVM {
		id := common.HexToHash(p.id)
		args, err := initiateArgs.Pack(id, req.AddressList[1], memo)
		if err != nil {
			return nil, &apiErr{status: http.StatusInternalServerError, code: api.CodeInternal, msg: "encode calldata: " + err.Error()}
		}
		tx := &api.EVMTx{
			ChainID: src.ChainID, To: p.escrow, Value: amountIn.String(),
			Data:                   hex.EncodeToString(append(append([]byte{}, initiateSelector...), args...)),
			RequiredERC20Approvals: []api.ERC20Approval{}, SignerAddress: req.AddressList[0],
		}
		res.Txs = []api.Tx{{EVMTx: tx, OperationsIndices: ops}}
		res.Msgs = []api.Msg{{EVMTx: tx}}
		return res, nil
	}
	first := path[0]
	var msg api.CosmosMsg
	coin := map[string]string{"denom": first.denomIn, "amount": amountIn.String()}
	switch {
	case first.bridge.Type == api.BridgeIBC:
		b, _ := json.Marshal(map[string]any{
			"source_port": first.bridge.Port, "source_channel": first.bridge.Channel, "token": coin,
			"sender": req.AddressList[0], "receiver": req.AddressList[1], "timeout_height": map[string]string{},
			"timeout_timestamp": uint64(s.now().UnixNano()) + uint64(timeout)*1e9, "memo": memo,
		})
		msg = api.CosmosMsg{MsgTypeURL: msgTransferURL, Msg: string(b)}
	case first.bridge.Withdrawal:
		b, _ := json.Marshal(map[string]any{"sender": req.AddressList[0], "to": req.AddressList[1], "amount": coin})
		msg = api.CosmosMsg{MsgTypeURL: msgInitiateWithdraw, Msg: string(b)}
	default:
		b, _ := json.Marshal(map[string]any{
			"sender": req.AddressList[0], "bridge_id": first.bridge.OPInitBridgeID, "to": req.AddressList[1],
			"amount": coin, "data": memo,
		})
		msg = api.CosmosMsg{MsgTypeURL: msgInitiateDeposit, Msg: string(b)}
	}
	res.Txs = []api.Tx{{CosmosTx: &api.CosmosTx{ChainID: src.ChainID, Path: chains, SignerAddress: req.AddressList[0], Msgs: []api.CosmosMsg{msg}}, OperationsIndices: ops}}
	res.Msgs = []api.Msg{{MultiChainMsg: &api.MultiChainMsg{ChainID: src.ChainID, Path: chains, Msg: msg.Msg, MsgTypeURL: msg.MsgTypeURL}}}
	return res, nil
}

// checkSignedHook verifies signed_op_hook as the hook chain would run it: signer is the
// user's address on the hook chain; hook is a base64 protobuf Cosmos tx whose messages are
// exactly the hook /op-hook issued for these addresses, signed with the signer's
// eth_secp256k1 key (SIGN_MODE_EIP_191 or SIGN_MODE_DIRECT) for the hook chain with the
// signer's account number and current sequence there.
func (s *Server) checkSignedHook(ctx context.Context, sh *api.SignedOPHook, path []hop, hi int, addrs []string) (uint64, *apiErr) {
	if sh == nil {
		return 0, badField("signed_op_hook", "is required: the route's OPinit hop after an earlier hop runs as a hook; get it from /op-hook and sign it")
	}
	hookChain := path[hi].bridge.FromChainID
	if sh.Signer == "" {
		return 0, badField("signed_op_hook.signer", "is required")
	}
	if sh.Signer != addrs[hi] {
		return 0, badField("signed_op_hook.signer", fmt.Sprintf("is %s; the address on %s in address_list is %s", sh.Signer, hookChain, addrs[hi]))
	}
	if sh.Hook == "" {
		return 0, badField("signed_op_hook.hook", "is required")
	}
	tx, err := api.DecodeHookTx(sh.Hook)
	if err != nil {
		return 0, badField("signed_op_hook.hook", err.Error())
	}
	want := hookMsgs(path[hi], sh.Signer, addrs[len(addrs)-1])
	s.mu.Lock()
	issued := s.hooks[hookKey(hookChain, want)]
	s.mu.Unlock()
	if !issued {
		return 0, badField("signed_op_hook.hook", "was not issued by /op-hook for these addresses")
	}
	if len(tx.Msgs) != len(want) {
		return 0, badField("signed_op_hook.hook", fmt.Sprintf("holds %d messages; the hook has %d", len(tx.Msgs), len(want)))
	}
	for i, m := range want {
		d, _ := api.ParseTokenDeposit(m)
		if tx.Msgs[i] != d {
			return 0, badField("signed_op_hook.hook", fmt.Sprintf("message %d is not the hook's deposit (%+v, want %+v)", i, tx.Msgs[i], d))
		}
	}
	_, signerBytes, err := bech32.DecodeAndConvert(sh.Signer)
	key, kerr := tx.Signer()
	if err != nil || kerr != nil || hex.EncodeToString(signerBytes) != hex.EncodeToString(key) {
		return 0, badField("signed_op_hook.hook", "is signed by a key that is not the signer's")
	}
	num, seq, err := s.account(ctx, hookChain, sh.Signer)
	if err != nil {
		return 0, &apiErr{status: http.StatusServiceUnavailable, code: api.CodeUnavailable, msg: fmt.Sprintf("read account %s on %s: %v", sh.Signer, hookChain, err)}
	}
	// A hook may be signed for a later sequence (interwovenkit adds the sequences the
	// bridge tx uses when it runs on the hook chain too); one already used can never run.
	if tx.Sequence < seq {
		return 0, badField("signed_op_hook.hook", fmt.Sprintf("is signed with sequence %d; the signer's sequence on %s is already %d", tx.Sequence, hookChain, seq))
	}
	if err := tx.Verify(hookChain, num); err != nil {
		return 0, badField("signed_op_hook.hook", err.Error())
	}
	return tx.Sequence, nil
}

// forwardMemo is the memo of the first hop: what the chains after it do, innermost last.
// IBC hops forward (packet-forward middleware); an OPinit hop runs the signed hook.
func forwardMemo(path []hop, addrs []string, hook *api.SignedOPHook) string {
	var next any
	for i := len(path) - 1; i >= 1; i-- {
		b := path[i].bridge
		switch b.Type {
		case api.BridgeIBC:
			fwd := map[string]any{"receiver": addrs[i+1], "port": b.Port, "channel": b.Channel}
			if next != nil {
				fwd["next"] = next
			}
			next = map[string]any{"forward": fwd}
		case api.BridgeOPInit:
			h := map[string]any{"bridge_id": b.OPInitBridgeID}
			if hook != nil {
				h["signer"], h["hook"] = hook.Signer, hook.Hook
			}
			next = map[string]any{"op_hook": h}
		}
	}
	if next == nil {
		return ""
	}
	b, _ := json.Marshal(next)
	return string(b)
}

// planID identifies a msgs request: the same request gives the same id.
func planID(req api.MsgsRequest, path []hop) string {
	var hook string
	if req.SignedOPHook != nil {
		hook = req.SignedOPHook.Signer + "/" + req.SignedOPHook.Hook
	}
	b, _ := json.Marshal([]any{req.SourceAssetChainID, req.SourceAssetDenom, req.DestAssetChainID, req.DestAssetDenom,
		req.AmountIn, req.AddressList, pathKey(path), hook, req.TimeoutSeconds})
	return common.BytesToHash(crypto.Keccak256(b)).Hex()
}

// routeIDFromCalldata reads the route id of an evm_tx the stand-in built.
func routeIDFromCalldata(data []byte) (string, bool) {
	if len(data) < 4 || string(data[:4]) != string(initiateSelector) {
		return "", false
	}
	vals, err := initiateArgs.Unpack(data[4:])
	if err != nil || len(vals) != 3 {
		return "", false
	}
	id, ok := vals[0].([32]byte)
	if !ok {
		return "", false
	}
	return common.Hash(id).Hex(), true
}
