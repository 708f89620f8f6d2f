package embedded

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// The embedded EVM serves the JSON-RPC methods a minievm (v1.2.18, jsonrpc/namespaces)
// serves, not go-ethereum's larger set: a client probes methods and changes course on the
// answer (viem fills a tx with eth_fillTransaction where a node has it, taking the node's
// fees instead of its own estimate). geth's eth methods that minievm lacks answer as a
// missing method does; its debug namespace is minievm's four methods, run by geth.

// methodAbsent is the error for a method the node does not serve, in geth's rpc words (which
// minievm's server is): code -32601.
type methodAbsent string

func (m methodAbsent) Error() string {
	return "the method " + string(m) + " does not exist/is not available"
}
func (methodAbsent) ErrorCode() int { return -32601 }

// arg is an optional raw argument: a method that answers methodAbsent takes (and ignores)
// up to four, so that it answers as a missing method whatever a client sends it.
type arg = *json.RawMessage

// notMinievmEth shadows the eth methods go-ethereum serves and minievm does not; registered
// after geth's eth service, its methods replace theirs.
type notMinievmEth struct{}

func (notMinievmEth) Accounts(_, _, _, _ arg) (any, error) { return nil, methodAbsent("eth_accounts") }
func (notMinievmEth) BaseFee(_, _, _, _ arg) (any, error)  { return nil, methodAbsent("eth_baseFee") }
func (notMinievmEth) BlobBaseFee(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_blobBaseFee")
}
func (notMinievmEth) Capabilities(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_capabilities")
}
func (notMinievmEth) Config(_, _, _, _ arg) (any, error) { return nil, methodAbsent("eth_config") }
func (notMinievmEth) CreateAccessList(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_createAccessList")
}
func (notMinievmEth) FillTransaction(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_fillTransaction")
}
func (notMinievmEth) GetHeaderByHash(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_getHeaderByHash")
}
func (notMinievmEth) GetHeaderByNumber(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_getHeaderByNumber")
}
func (notMinievmEth) GetProof(_, _, _, _ arg) (any, error) { return nil, methodAbsent("eth_getProof") }
func (notMinievmEth) GetRawTransactionByBlockNumberAndIndex(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_getRawTransactionByBlockNumberAndIndex")
}
func (notMinievmEth) GetStorageValues(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_getStorageValues")
}
func (notMinievmEth) Resend(_, _, _, _ arg) (any, error) { return nil, methodAbsent("eth_resend") }
func (notMinievmEth) SendTransaction(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_sendTransaction")
}
func (notMinievmEth) Sign(_, _, _, _ arg) (any, error) { return nil, methodAbsent("eth_sign") }
func (notMinievmEth) SignTransaction(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_signTransaction")
}
func (notMinievmEth) SimulateV1(_, _, _, _ arg) (any, error) {
	return nil, methodAbsent("eth_simulateV1")
}

// Hashrate is 0: a minievm mines nothing (it answers eth_hashrate and eth_mining).
func (a *minievmAPI) Hashrate() hexutil.Uint64 { return 0 }

// Mining is false.
func (a *minievmAPI) Mining() bool { return false }

// minievmDebug is minievm's debug namespace (storageRangeAt and the three traces), each
// run by geth's own debug and tracer APIs in process.
type minievmDebug struct{ geth *rpc.Client }

func (d minievmDebug) forward(ctx context.Context, method string, args ...arg) (json.RawMessage, error) {
	params := make([]any, 0, len(args))
	for _, a := range args {
		if a == nil {
			break
		}
		params = append(params, *a)
	}
	var out json.RawMessage
	if err := d.geth.CallContext(ctx, &out, method, params...); err != nil {
		return nil, passError(err)
	}
	return out, nil
}

// StorageRangeAt is geth's debug_storageRangeAt.
func (d minievmDebug) StorageRangeAt(ctx context.Context, a, b, c, e, f arg) (json.RawMessage, error) {
	return d.forward(ctx, "debug_storageRangeAt", a, b, c, e, f)
}

// TraceTransaction is geth's debug_traceTransaction.
func (d minievmDebug) TraceTransaction(ctx context.Context, a, b arg) (json.RawMessage, error) {
	return d.forward(ctx, "debug_traceTransaction", a, b)
}

// TraceBlockByNumber is geth's debug_traceBlockByNumber.
func (d minievmDebug) TraceBlockByNumber(ctx context.Context, a, b arg) (json.RawMessage, error) {
	return d.forward(ctx, "debug_traceBlockByNumber", a, b)
}

// TraceBlockByHash is geth's debug_traceBlockByHash.
func (d minievmDebug) TraceBlockByHash(ctx context.Context, a, b arg) (json.RawMessage, error) {
	return d.forward(ctx, "debug_traceBlockByHash", a, b)
}

// forwardedError is an error the in-process geth server answered, with its code and data.
type forwardedError struct {
	msg  string
	code int
	data any
}

func (e *forwardedError) Error() string  { return e.msg }
func (e *forwardedError) ErrorCode() int { return e.code }
func (e *forwardedError) ErrorData() any { return e.data }

// passError keeps a JSON-RPC error's code and data as geth's in-process server gave them.
func passError(err error) error {
	var re rpc.Error
	if !errors.As(err, &re) {
		return err
	}
	fe := &forwardedError{msg: err.Error(), code: re.ErrorCode()}
	var de rpc.DataError
	if errors.As(err, &de) {
		fe.data = de.ErrorData()
	}
	return fe
}
