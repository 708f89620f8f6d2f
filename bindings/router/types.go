// Package router is the typed Go face of Initia's routing service, a superset of the Skip
// Go API v2: request and response types with the service's JSON names, a client of the five
// endpoints a transfer needs (route, op-hook, msgs, track, status), the whole transfer flow
// (Client.Transfer) and an EVM Signer. Keys never leave the Signer: the service only ever
// sees addresses, unsigned messages and transaction hashes.
package router

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Paths of the endpoints, relative to the service's base URL. The op-hook endpoint is an
// Initia extension and lives outside /v2.
const (
	PathRoute  = "/v2/fungible/route"
	PathOPHook = "/op-hook"
	PathMsgs   = "/v2/fungible/msgs"
	PathTrack  = "/v2/tx/track"
	PathStatus = "/v2/tx/status"
)

// Bridge types (BridgeType in the API).
const (
	BridgeIBC    = "IBC"
	BridgeOPInit = "OPINIT"
	BridgeAxelar = "AXELAR"
	BridgeCCTP   = "CCTP"
)

// RouteRequest is the body of POST /v2/fungible/route. Give AmountIn or AmountOut, not both.
type RouteRequest struct {
	AmountIn                  string   `json:"amount_in,omitempty"`
	AmountOut                 string   `json:"amount_out,omitempty"`
	SourceAssetChainID        string   `json:"source_asset_chain_id"`
	SourceAssetDenom          string   `json:"source_asset_denom"`
	DestAssetChainID          string   `json:"dest_asset_chain_id"`
	DestAssetDenom            string   `json:"dest_asset_denom"`
	CumulativeAffiliateFeeBPS string   `json:"cumulative_affiliate_fee_bps,omitempty"`
	AllowMultiTx              *bool    `json:"allow_multi_tx,omitempty"`
	AllowUnsafe               *bool    `json:"allow_unsafe,omitempty"`
	AllowSwaps                *bool    `json:"allow_swaps,omitempty"`
	SmartRelay                *bool    `json:"smart_relay,omitempty"`
	GoFast                    *bool    `json:"go_fast,omitempty"`
	Bridges                   []string `json:"bridges,omitempty"`
	ExperimentalFeatures      []string `json:"experimental_features,omitempty"`
	// IsOPWithdraw (Initia) asks for the OPinit withdrawal path from a rollup to L1.
	IsOPWithdraw *bool `json:"is_op_withdraw,omitempty"`
}

// RouteWarning flags a route with a poor or unknown execution price.
type RouteWarning struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// RouteResponse is the reply of POST /v2/fungible/route.
type RouteResponse struct {
	AmountIn                      string            `json:"amount_in"`
	AmountOut                     string            `json:"amount_out"`
	SourceAssetDenom              string            `json:"source_asset_denom"`
	SourceAssetChainID            string            `json:"source_asset_chain_id"`
	DestAssetDenom                string            `json:"dest_asset_denom"`
	DestAssetChainID              string            `json:"dest_asset_chain_id"`
	Operations                    []Operation       `json:"operations"`
	ChainIDs                      []string          `json:"chain_ids"`
	RequiredChainAddresses        []string          `json:"required_chain_addresses"`
	DoesSwap                      bool              `json:"does_swap"`
	EstimatedAmountOut            string            `json:"estimated_amount_out,omitempty"`
	SwapVenues                    []json.RawMessage `json:"swap_venues,omitempty"`
	TxsRequired                   int               `json:"txs_required"`
	USDAmountIn                   string            `json:"usd_amount_in,omitempty"`
	USDAmountOut                  string            `json:"usd_amount_out,omitempty"`
	SwapPriceImpactPercent        *string           `json:"swap_price_impact_percent,omitempty"`
	Warning                       *RouteWarning     `json:"warning,omitempty"`
	EstimatedFees                 []json.RawMessage `json:"estimated_fees"`
	EstimatedRouteDurationSeconds int64             `json:"estimated_route_duration_seconds"`
	// Initia extensions.
	RequiredOPHook bool     `json:"required_op_hook"`
	ExtraInfos     []string `json:"extra_infos,omitempty"`
	ExtraWarnings  []string `json:"extra_warnings,omitempty"`
}

// Transfer is an IBC transfer operation (the "transfer" key of an Operation).
type Transfer struct {
	Port                           string          `json:"port"`
	Channel                        string          `json:"channel"`
	FromChainID                    string          `json:"from_chain_id"`
	ToChainID                      string          `json:"to_chain_id"`
	PFMEnabled                     bool            `json:"pfm_enabled"`
	SupportsMemo                   bool            `json:"supports_memo"`
	DenomIn                        string          `json:"denom_in"`
	DenomOut                       string          `json:"denom_out"`
	FeeAmount                      *string         `json:"fee_amount,omitempty"`
	USDFeeAmount                   *string         `json:"usd_fee_amount,omitempty"`
	FeeAsset                       json.RawMessage `json:"fee_asset,omitempty"`
	BridgeID                       string          `json:"bridge_id,omitempty"`
	SmartRelay                     bool            `json:"smart_relay"`
	ToChainEntryContractAddress    *string         `json:"to_chain_entry_contract_address,omitempty"`
	ToChainCallbackContractAddress *string         `json:"to_chain_callback_contract_address,omitempty"`
	DestDenom                      string          `json:"dest_denom,omitempty"` // deprecated alias of denom_out
}

// OPInitTransfer is a transfer over an OPinit bridge (the "op_init_transfer" key).
type OPInitTransfer struct {
	FromChainID    string `json:"from_chain_id"`
	ToChainID      string `json:"to_chain_id"`
	DenomIn        string `json:"denom_in"`
	DenomOut       string `json:"denom_out"`
	OPInitBridgeID string `json:"op_init_bridge_id"`
	BridgeID       string `json:"bridge_id,omitempty"`
	SmartRelay     bool   `json:"smart_relay"`
}

// Operation is one step of a route: an object with exactly one kind key ("transfer",
// "op_init_transfer", "swap", ...) beside tx_index, amount_in and amount_out. Kinds this
// package does not model are kept verbatim in Other, so a route's operations pass to msgs
// unchanged.
type Operation struct {
	TxIndex        int
	AmountIn       string
	AmountOut      string
	Transfer       *Transfer
	OPInitTransfer *OPInitTransfer
	Other          map[string]json.RawMessage
}

// Kind returns the operation's kind key.
func (o Operation) Kind() string {
	switch {
	case o.Transfer != nil:
		return "transfer"
	case o.OPInitTransfer != nil:
		return "op_init_transfer"
	}
	keys := make([]string, 0, len(o.Other))
	for k := range o.Other {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// MarshalJSON writes the flat one-kind-key object.
func (o Operation) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 4+len(o.Other))
	for k, v := range o.Other {
		m[k] = v
	}
	m["tx_index"] = o.TxIndex
	m["amount_in"] = o.AmountIn
	m["amount_out"] = o.AmountOut
	if o.Transfer != nil {
		m["transfer"] = o.Transfer
	}
	if o.OPInitTransfer != nil {
		m["op_init_transfer"] = o.OPInitTransfer
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads the flat object; unknown keys land in Other.
func (o *Operation) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*o = Operation{}
	for k, v := range m {
		var err error
		switch k {
		case "tx_index":
			err = json.Unmarshal(v, &o.TxIndex)
		case "amount_in":
			err = json.Unmarshal(v, &o.AmountIn)
		case "amount_out":
			err = json.Unmarshal(v, &o.AmountOut)
		case "transfer":
			if string(v) != "null" {
				o.Transfer = new(Transfer)
				err = json.Unmarshal(v, o.Transfer)
			}
		case "op_init_transfer":
			if string(v) != "null" {
				o.OPInitTransfer = new(OPInitTransfer)
				err = json.Unmarshal(v, o.OPInitTransfer)
			}
		default:
			if o.Other == nil {
				o.Other = map[string]json.RawMessage{}
			}
			o.Other[k] = v
		}
		if err != nil {
			return fmt.Errorf("operation %s: %w", k, err)
		}
	}
	return nil
}

// CosmosMsg is a message of a Cosmos transaction: a proto type URL and the message as
// amino JSON in a string.
type CosmosMsg struct {
	MsgTypeURL string `json:"msg_type_url"`
	Msg        string `json:"msg"`
}

// OPHookRequest is the body of POST /op-hook (Initia).
type OPHookRequest struct {
	SourceAddress      string `json:"source_address"`
	SourceAssetChainID string `json:"source_asset_chain_id"`
	SourceAssetDenom   string `json:"source_asset_denom"`
	DestAddress        string `json:"dest_address"`
	DestAssetChainID   string `json:"dest_asset_chain_id"`
	DestAssetDenom     string `json:"dest_asset_denom"`
}

// OPHookResponse holds the messages the user signs, as a transaction on ChainID, for the
// OPinit deposit that runs after an earlier hop has arrived.
type OPHookResponse struct {
	ChainID string      `json:"chain_id"`
	Hook    []CosmosMsg `json:"hook"`
}

// SignedOPHook is passed to msgs as signed_op_hook: the signer's address and the signed
// hook transaction, base64.
type SignedOPHook struct {
	Signer string `json:"signer"`
	Hook   string `json:"hook"`
}

// MsgsRequest is the body of POST /v2/fungible/msgs: the route's assets, amounts and
// operations, plus one address per required chain.
type MsgsRequest struct {
	SourceAssetDenom         string                     `json:"source_asset_denom"`
	SourceAssetChainID       string                     `json:"source_asset_chain_id"`
	DestAssetDenom           string                     `json:"dest_asset_denom"`
	DestAssetChainID         string                     `json:"dest_asset_chain_id"`
	AmountIn                 string                     `json:"amount_in"`
	AmountOut                string                     `json:"amount_out,omitempty"`
	AddressList              []string                   `json:"address_list"`
	Operations               []Operation                `json:"operations"`
	EstimatedAmountOut       string                     `json:"estimated_amount_out,omitempty"`
	SlippageTolerancePercent string                     `json:"slippage_tolerance_percent,omitempty"`
	ChainIDsToAffiliates     map[string]json.RawMessage `json:"chain_ids_to_affiliates,omitempty"`
	PostRouteHandler         json.RawMessage            `json:"post_route_handler,omitempty"`
	TimeoutSeconds           string                     `json:"timeout_seconds,omitempty"`
	EnableGasWarnings        *bool                      `json:"enable_gas_warnings,omitempty"`
	SignedOPHook             *SignedOPHook              `json:"signed_op_hook,omitempty"`
}

// ERC20Approval is an allowance an EVM transaction needs before it runs.
type ERC20Approval struct {
	TokenContract string `json:"token_contract"`
	Spender       string `json:"spender"`
	Amount        string `json:"amount"`
}

// EVMTx is a transaction for an EVM chain: To, Value (decimal wei) and Data (hex; the
// service sends it without 0x).
type EVMTx struct {
	ChainID                string          `json:"chain_id"`
	To                     string          `json:"to"`
	Value                  string          `json:"value"`
	Data                   string          `json:"data"`
	RequiredERC20Approvals []ERC20Approval `json:"required_erc20_approvals"`
	SignerAddress          string          `json:"signer_address"`
}

// CosmosTx is a transaction for a Cosmos chain; the messages must keep their order.
type CosmosTx struct {
	ChainID       string      `json:"chain_id"`
	Path          []string    `json:"path"`
	SignerAddress string      `json:"signer_address"`
	Msgs          []CosmosMsg `json:"msgs"`
}

// MultiChainMsg is a Cosmos message of the deprecated msgs list.
type MultiChainMsg struct {
	ChainID    string   `json:"chain_id"`
	Path       []string `json:"path"`
	Msg        string   `json:"msg"`
	MsgTypeURL string   `json:"msg_type_url"`
}

// Msg is an entry of the msgs list (one key set).
type Msg struct {
	MultiChainMsg *MultiChainMsg  `json:"multi_chain_msg,omitempty"`
	EVMTx         *EVMTx          `json:"evm_tx,omitempty"`
	SVMTx         json.RawMessage `json:"svm_tx,omitempty"`
}

// Tx is a transaction to sign and broadcast (one of CosmosTx, EVMTx, SVMTx is set).
type Tx struct {
	CosmosTx          *CosmosTx       `json:"cosmos_tx,omitempty"`
	EVMTx             *EVMTx          `json:"evm_tx,omitempty"`
	SVMTx             json.RawMessage `json:"svm_tx,omitempty"`
	OperationsIndices []int           `json:"operations_indices,omitempty"`
}

// ChainID is the chain the transaction is for.
func (t Tx) ChainID() string {
	switch {
	case t.EVMTx != nil:
		return t.EVMTx.ChainID
	case t.CosmosTx != nil:
		return t.CosmosTx.ChainID
	}
	var s struct {
		ChainID string `json:"chain_id"`
	}
	_ = json.Unmarshal(t.SVMTx, &s)
	return s.ChainID
}

// MsgsResponse is the reply of POST /v2/fungible/msgs.
type MsgsResponse struct {
	Msgs          []Msg             `json:"msgs"`
	Txs           []Tx              `json:"txs"`
	MinAmountOut  string            `json:"min_amount_out,omitempty"`
	EstimatedFees []json.RawMessage `json:"estimated_fees"`
}

// TrackRequest is the body of POST /v2/tx/track and the query of GET /v2/tx/status.
type TrackRequest struct {
	TxHash  string `json:"tx_hash"`
	ChainID string `json:"chain_id"`
}

// StatusRequest is the query of GET /v2/tx/status.
type StatusRequest = TrackRequest

// TrackResponse is the reply of POST /v2/tx/track.
type TrackResponse struct {
	TxHash       string `json:"tx_hash"`
	ExplorerLink string `json:"explorer_link"`
}

// Transaction states (TransactionState) and the high-level status values.
const (
	StateSubmitted        = "STATE_SUBMITTED"
	StatePending          = "STATE_PENDING"
	StatePendingError     = "STATE_PENDING_ERROR"
	StateCompletedSuccess = "STATE_COMPLETED_SUCCESS"
	StateCompletedError   = "STATE_COMPLETED_ERROR"
	StateAbandoned        = "STATE_ABANDONED"
	// StateCompleted is the high-level status of a finished transfer; StateFailed is the
	// high-level status this project's spec names for a failed one.
	StateCompleted = "STATE_COMPLETED"
	StateFailed    = "STATE_FAILED"
)

// Per-hop states.
const (
	TransferUnknown  = "TRANSFER_UNKNOWN"
	TransferPending  = "TRANSFER_PENDING"
	TransferReceived = "TRANSFER_RECEIVED"
	TransferSuccess  = "TRANSFER_SUCCESS"
	TransferFailure  = "TRANSFER_FAILURE"

	OPInitTransferUnknown  = "OPINIT_TRANSFER_UNKNOWN"
	OPInitTransferSent     = "OPINIT_TRANSFER_SENT"
	OPInitTransferReceived = "OPINIT_TRANSFER_RECEIVED"
)

// Status and packet error types.
const (
	StatusErrorUnknown              = "STATUS_ERROR_UNKNOWN"
	StatusErrorTransactionExecution = "STATUS_ERROR_TRANSACTION_EXECUTION"
	StatusErrorIndexing             = "STATUS_ERROR_INDEXING"
	StatusErrorTransfer             = "STATUS_ERROR_TRANSFER"

	PacketErrorUnknown         = "PACKET_ERROR_UNKNOWN"
	PacketErrorAcknowledgement = "PACKET_ERROR_ACKNOWLEDGEMENT"
	PacketErrorTimeout         = "PACKET_ERROR_TIMEOUT"
)

// ChainTransaction is a transaction seen on some chain during a transfer.
type ChainTransaction struct {
	ChainID      string `json:"chain_id"`
	TxHash       string `json:"tx_hash"`
	ExplorerLink string `json:"explorer_link"`
	OnChainAt    string `json:"on_chain_at,omitempty"`
}

// PacketError describes a failed IBC packet.
type PacketError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details,omitempty"`
}

// Packet holds the transactions of an IBC packet's life.
type Packet struct {
	SendTx        *ChainTransaction `json:"send_tx"`
	ReceiveTx     *ChainTransaction `json:"receive_tx"`
	AcknowledgeTx *ChainTransaction `json:"acknowledge_tx"`
	TimeoutTx     *ChainTransaction `json:"timeout_tx"`
	Error         *PacketError      `json:"error"`
}

// IBCTransferInfo is an ibc_transfer entry of a transfer sequence.
type IBCTransferInfo struct {
	FromChainID string `json:"from_chain_id"`
	ToChainID   string `json:"to_chain_id"`
	State       string `json:"state"`
	PacketTxs   Packet `json:"packet_txs"`
	SrcChainID  string `json:"src_chain_id,omitempty"`
	DstChainID  string `json:"dst_chain_id,omitempty"`
}

// OPInitTransferTxs are the two sides of an OPinit transfer.
type OPInitTransferTxs struct {
	SendTx    *ChainTransaction `json:"send_tx"`
	ReceiveTx *ChainTransaction `json:"receive_tx"`
}

// OPInitTransferInfo is an op_init_transfer entry of a transfer sequence.
type OPInitTransferInfo struct {
	FromChainID string            `json:"from_chain_id"`
	ToChainID   string            `json:"to_chain_id"`
	State       string            `json:"state"`
	Txs         OPInitTransferTxs `json:"txs"`
}

// TransferEvent is one hop of a transfer sequence (one key set). Kinds without a typed
// field here (axelar_transfer, cctp_transfer, ...) are kept raw.
type TransferEvent struct {
	IBCTransfer       *IBCTransferInfo    `json:"ibc_transfer,omitempty"`
	OPInitTransfer    *OPInitTransferInfo `json:"op_init_transfer,omitempty"`
	AxelarTransfer    json.RawMessage     `json:"axelar_transfer,omitempty"`
	CCTPTransfer      json.RawMessage     `json:"cctp_transfer,omitempty"`
	HyperlaneTransfer json.RawMessage     `json:"hyperlane_transfer,omitempty"`
	StargateTransfer  json.RawMessage     `json:"stargate_transfer,omitempty"`
	GoFastTransfer    json.RawMessage     `json:"go_fast_transfer,omitempty"`
	EurekaTransfer    json.RawMessage     `json:"eureka_transfer,omitempty"`
	LayerZeroTransfer json.RawMessage     `json:"layer_zero_transfer,omitempty"`
}

// HopState returns the hop's own state (TRANSFER_* or OPINIT_TRANSFER_*), if typed.
func (e TransferEvent) HopState() string {
	switch {
	case e.IBCTransfer != nil:
		return e.IBCTransfer.State
	case e.OPInitTransfer != nil:
		return e.OPInitTransfer.State
	}
	return ""
}

// NextBlockingTransfer points at the transfer_sequence entry a transfer waits on.
type NextBlockingTransfer struct {
	TransferSequenceIndex int `json:"transfer_sequence_index"`
}

// TransferAssetRelease says where the transferred asset ended up.
type TransferAssetRelease struct {
	ChainID  string  `json:"chain_id"`
	Denom    string  `json:"denom"`
	Amount   *string `json:"amount,omitempty"`
	Released bool    `json:"released"`
}

// StatusErrorDetails is the execution error of a transaction.
type StatusErrorDetails struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// StatusError explains a failed transfer.
type StatusError struct {
	Type    string              `json:"type"`
	Message string              `json:"message"`
	Details *StatusErrorDetails `json:"details,omitempty"`
}

// TransferStatus is the status of one transfer started by a transaction.
type TransferStatus struct {
	State                string                `json:"state"`
	TransferSequence     []TransferEvent       `json:"transfer_sequence"`
	NextBlockingTransfer *NextBlockingTransfer `json:"next_blocking_transfer"`
	TransferAssetRelease *TransferAssetRelease `json:"transfer_asset_release"`
	Error                *StatusError          `json:"error"`
}

// StatusResponse is the reply of GET /v2/tx/status.
type StatusResponse struct {
	Transfers            []TransferStatus      `json:"transfers"`
	State                string                `json:"state"`
	NextBlockingTransfer *NextBlockingTransfer `json:"next_blocking_transfer"`
	TransferAssetRelease *TransferAssetRelease `json:"transfer_asset_release"`
	Error                *StatusError          `json:"error"`
	// TransferSequence is deprecated by the service in favour of Transfers.
	TransferSequence []TransferEvent `json:"transfer_sequence"`
	// Status is the high-level state: STATE_COMPLETED once finished.
	Status string `json:"status,omitempty"`
}

// Terminal reports whether the transfer has finished, successfully or not: the detailed
// state is STATE_COMPLETED_SUCCESS, STATE_COMPLETED_ERROR or STATE_ABANDONED, or the
// high-level status is STATE_COMPLETED or STATE_FAILED. STATE_PENDING_ERROR is not final.
func (s *StatusResponse) Terminal() bool {
	switch s.State {
	case StateCompletedSuccess, StateCompletedError, StateAbandoned, StateCompleted, StateFailed:
		return true
	}
	switch s.Status {
	case StateCompleted, StateFailed:
		return true
	}
	return false
}

// Succeeded reports whether the transfer finished with the asset at its destination.
func (s *StatusResponse) Succeeded() bool {
	switch s.State {
	case StateCompletedSuccess:
		return true
	case StateCompletedError, StateAbandoned, StateFailed, StatePendingError:
		return false
	}
	return s.State == StateCompleted || (s.State == "" && s.Status == StateCompleted)
}
