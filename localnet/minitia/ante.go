package minitia

import (
	"fmt"

	errorsmod "cosmossdk.io/errors"
	storetypes "cosmossdk.io/store/types"
	txsigning "cosmossdk.io/x/tx/signing"
	wasmkeeper "github.com/CosmWasm/wasmd/x/wasm/keeper"
	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/runtime"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	"github.com/cosmos/cosmos-sdk/x/auth/ante"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/vipharness/vipharness/deployer/keys/ethsecp256k1"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
	"github.com/vipharness/vipharness/localnet/minitia/xevm"
)

// anteHandler is the SDK's ante chain as a minitia runs it, with wasmd's two decorators and
// two of Initia's: eth_secp256k1 signatures cost what secp256k1 ones do, and a tx signed in
// SIGN_MODE_EIP_191 is verified against its EIP-191 sign bytes (the SDK's verifier knows the
// SDK's sign modes only).
func (a *App) anteHandler() (sdk.AnteHandler, error) {
	handlers := a.enc.TxConfig.SignModeHandler()
	decorators := []sdk.AnteDecorator{ante.NewSetUpContextDecorator()}
	if a.WasmKeeper != nil {
		simLimit := uint64(wasmSimulationGasLimit)
		decorators = append(decorators,
			wasmkeeper.NewLimitSimulationGasDecorator(&simLimit),
			wasmkeeper.NewCountTXDecorator(runtime.NewKVStoreService(a.keys[wasmtypes.StoreKey])),
			wasmkeeper.NewGasRegisterDecorator(a.WasmKeeper.GetGasRegister()),
			wasmkeeper.NewTxContractsDecorator())
	}
	var feeChecker ante.TxFeeChecker // the SDK's: the node's minimum gas prices
	if a.rollup() {
		feeChecker = a.opchildFeeChecker
	}
	var bank authtypes.BankKeeper = a.BankKeeper
	if a.vmBank != nil {
		bank = a.vmBank // fees are paid in the VM's coins
	}
	decorators = append(decorators, ante.NewExtensionOptionsDecorator(nil))
	if a.MoveKeeper != nil {
		decorators = append(decorators, zeroGasRefused{})
	}
	var sizeGas, sigGas sdk.AnteDecorator = ante.NewConsumeGasForTxSizeDecorator(a.AccountKeeper), ante.NewSigGasConsumeDecorator(a.AccountKeeper, sigGasConsumer)
	if a.EVMKeeper != nil {
		// As minievm: an Ethereum tx is found first, and pays for its bytes and signature
		// in its intrinsic gas only.
		decorators = append(decorators, xevm.EthereumTxDecorator{Addresses: a.enc.Address, Keeper: a.EVMKeeper}, xevm.GasPricesDecorator{})
		sizeGas, sigGas = xevm.UnlessEthereumTx{Next: sizeGas}, xevm.UnlessEthereumTx{Next: sigGas}
	}
	var deductFee sdk.AnteDecorator = ante.NewDeductFeeDecorator(a.AccountKeeper, bank, a.FeeGrantKeeper, feeChecker)
	if a.EVMKeeper != nil {
		// As minievm: the fee token's transfer that pays a fee in the fee denom is free.
		deductFee = gasFreeFee{inner: deductFee, feeDenom: a.cfg.FeeDenom}
	}
	decorators = append(decorators,
		ante.NewValidateBasicDecorator(),
		ante.NewTxTimeoutHeightDecorator(),
		ante.NewValidateMemoDecorator(a.AccountKeeper),
		sizeGas,
		deductFee,
		ante.NewSetPubKeyDecorator(a.AccountKeeper),
		ante.NewValidateSigCountDecorator(a.AccountKeeper),
		sigGas,
	)
	var verify sdk.AnteDecorator = eip191SigVerify{sdkVerify: ante.NewSigVerificationDecorator(a.AccountKeeper, handlers), ak: a.AccountKeeper, handlers: handlers}
	if a.EVMKeeper != nil {
		// An Ethereum tx in its Cosmos wrapping is verified by its own signature.
		verify = xevm.SigVerifyDecorator{Next: verify, Accounts: a.AccountKeeper}
	}
	decorators = append(decorators, verify, ante.NewIncrementSequenceDecorator(a.AccountKeeper))
	if a.EVMKeeper != nil {
		decorators = append(decorators, xevm.SequenceDecorator{})
	}
	return sdk.ChainAnteDecorators(decorators...), nil
}

// sigGasConsumer charges an eth_secp256k1 signature as a secp256k1 one (Initia's rule) and
// everything else as the SDK does.
func sigGasConsumer(meter storetypes.GasMeter, sig signing.SignatureV2, params authtypes.Params) error {
	if _, ok := sig.PubKey.(*ethsecp256k1.PubKey); ok {
		meter.ConsumeGas(params.SigVerifyCostSecp256k1, "ante verify: eth_secp256k1")
		return nil
	}
	return ante.DefaultSigVerificationGasConsumer(meter, sig, params)
}

// eip191SigVerify verifies txs that carry a SIGN_MODE_EIP_191 signature; all others go to
// the SDK's SigVerificationDecorator unchanged.
type eip191SigVerify struct {
	sdkVerify ante.SigVerificationDecorator
	ak        ante.AccountKeeper
	handlers  *txsigning.HandlerMap
}

func (d eip191SigVerify) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	sigTx, ok := tx.(authsigning.Tx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "invalid transaction type")
	}
	sigs, err := sigTx.GetSignaturesV2()
	if err != nil {
		return ctx, err
	}
	if !hasEIP191(sigs) {
		return d.sdkVerify.AnteHandle(ctx, tx, simulate, next)
	}
	if utx, ok := tx.(sdk.TxWithUnordered); ok && utx.GetUnordered() {
		return ctx, errorsmod.Wrap(sdkerrors.ErrNotSupported, "unordered transactions are not enabled")
	}
	signers, err := sigTx.GetSigners()
	if err != nil {
		return ctx, err
	}
	if len(sigs) != len(signers) {
		return ctx, errorsmod.Wrapf(sdkerrors.ErrUnauthorized, "invalid number of signer;  expected: %d, got %d", len(signers), len(sigs))
	}
	adaptable, ok := tx.(authsigning.V2AdaptableTx)
	if !ok {
		return ctx, fmt.Errorf("expected tx to implement V2AdaptableTx, got %T", tx)
	}
	for i, sig := range sigs {
		acc, err := ante.GetSignerAcc(ctx, d.ak, signers[i])
		if err != nil {
			return ctx, err
		}
		pk := acc.GetPubKey()
		if !simulate && pk == nil {
			return ctx, errorsmod.Wrap(sdkerrors.ErrInvalidPubKey, "pubkey on account is not set")
		}
		if sig.Sequence != acc.GetSequence() {
			return ctx, errorsmod.Wrapf(sdkerrors.ErrWrongSequence, "account sequence mismatch, expected %d, got %d", acc.GetSequence(), sig.Sequence)
		}
		if simulate || ctx.IsReCheckTx() || !ctx.IsSigverifyTx() {
			continue
		}
		single, ok := sig.Data.(*signing.SingleSignatureData)
		if !ok {
			return ctx, errorsmod.Wrap(sdkerrors.ErrUnauthorized, "multisig signatures are not supported in SIGN_MODE_EIP_191")
		}
		mode, err := cosmostx.APISignMode(single.SignMode)
		if err != nil {
			return ctx, errorsmod.Wrap(sdkerrors.ErrUnauthorized, err.Error())
		}
		anyPk, err := codectypes.NewAnyWithValue(pk)
		if err != nil {
			return ctx, err
		}
		accNum := acc.GetAccountNumber()
		if ctx.BlockHeight() == 0 {
			accNum = 0
		}
		data := txsigning.SignerData{Address: acc.GetAddress().String(), ChainID: ctx.ChainID(), AccountNumber: accNum,
			Sequence: sig.Sequence, PubKey: &anypb.Any{TypeUrl: anyPk.TypeUrl, Value: anyPk.Value}}
		bz, err := d.handlers.GetSignBytes(ctx, mode, data, adaptable.GetSigningTxData())
		if err != nil {
			return ctx, err
		}
		if !pk.VerifySignature(bz, single.Signature) {
			return ctx, errorsmod.Wrapf(sdkerrors.ErrUnauthorized,
				"signature verification failed; please verify account number (%d) and chain-id (%s)", accNum, ctx.ChainID())
		}
	}
	return next(ctx, tx, simulate)
}

func hasEIP191(sigs []signing.SignatureV2) bool {
	for _, s := range sigs {
		if single, ok := s.Data.(*signing.SingleSignatureData); ok && single.SignMode == signing.SignMode_SIGN_MODE_EIP_191 {
			return true
		}
	}
	return false
}

// zeroGasRefused refuses a delivered tx with a gas limit of zero in x/move's words, as x/move's
// GasPricesDecorator does where Initia's Move chains put it (before ValidateBasic), so the
// SDK's out-of-gas on the first read never answers it.
type zeroGasRefused struct{}

func (zeroGasRefused) AnteHandle(ctx sdk.Context, tx sdk.Tx, simulate bool, next sdk.AnteHandler) (sdk.Context, error) {
	feeTx, ok := tx.(sdk.FeeTx)
	if !ok {
		return ctx, errorsmod.Wrap(sdkerrors.ErrTxDecode, "Tx must be a FeeTx")
	}
	if !simulate && feeTx.GetGas() == 0 {
		return ctx, errorsmod.Wrap(sdkerrors.ErrOutOfGas, "Transaction gas cannot be zero.")
	}
	return next(ctx, tx, simulate)
}
