package cosmostx

import (
	"context"
	"fmt"

	signingv1beta1 "cosmossdk.io/api/cosmos/tx/signing/v1beta1"
	txsigning "cosmossdk.io/x/tx/signing"
	"cosmossdk.io/x/tx/signing/aminojson"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"

	"github.com/vipharness/vipharness/deployer/keys"
)

// eip191Handler is Initia's SIGN_MODE_EIP_191: the legacy amino-JSON sign doc behind the
// EIP-191 personal-message prefix, so a Ledger's Ethereum app can sign Cosmos txs. Initia
// chains enable it beside SIGN_MODE_DIRECT.
type eip191Handler struct{ amino *aminojson.SignModeHandler }

func newEIP191Handler(opts aminojson.SignModeHandlerOptions) eip191Handler {
	return eip191Handler{amino: aminojson.NewSignModeHandler(opts)}
}

// Mode is SIGN_MODE_EIP_191.
func (eip191Handler) Mode() signingv1beta1.SignMode {
	return signingv1beta1.SignMode_SIGN_MODE_EIP_191
}

// GetSignBytes is the EIP-191-prefixed amino-JSON sign doc.
func (h eip191Handler) GetSignBytes(ctx context.Context, data txsigning.SignerData, tx txsigning.TxData) ([]byte, error) {
	doc, err := h.amino.GetSignBytes(ctx, data, tx)
	if err != nil {
		return nil, err
	}
	return keys.FormatEIP191(doc), nil
}

// APISignMode maps the sign modes an Initia chain accepts (and this package signs in) to the
// x/tx enum (the SDK's own mapping does not know EIP-191).
func APISignMode(m signing.SignMode) (signingv1beta1.SignMode, error) {
	switch m {
	case signing.SignMode_SIGN_MODE_DIRECT:
		return signingv1beta1.SignMode_SIGN_MODE_DIRECT, nil
	case signing.SignMode_SIGN_MODE_DIRECT_AUX:
		return signingv1beta1.SignMode_SIGN_MODE_DIRECT_AUX, nil
	case signing.SignMode_SIGN_MODE_LEGACY_AMINO_JSON:
		return signingv1beta1.SignMode_SIGN_MODE_LEGACY_AMINO_JSON, nil
	case signing.SignMode_SIGN_MODE_EIP_191:
		return signingv1beta1.SignMode_SIGN_MODE_EIP_191, nil
	}
	return 0, fmt.Errorf("sign mode %s is not supported (want SIGN_MODE_DIRECT, DIRECT_AUX, LEGACY_AMINO_JSON or EIP_191)", m)
}

// SignBytes are the bytes a signer signs in mode for tx.
func (e *Encoding) SignBytes(ctx context.Context, mode signing.SignMode, data txsigning.SignerData, tx txsigning.TxData) ([]byte, error) {
	m, err := APISignMode(mode)
	if err != nil {
		return nil, err
	}
	return e.TxConfig.SignModeHandler().GetSignBytes(ctx, m, data, tx)
}
