package cosmostx

import (
	"context"
	"fmt"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"

	"github.com/vipharness/vipharness/deployer/keys"
	"github.com/vipharness/vipharness/deployer/vip"
)

// SoftKey wraps a Cosmos private key as a signer for a deployer's role options; a key of an
// unknown kind becomes nil (no key), which RoleSigner refuses where the role is needed.
func SoftKey(k cryptotypes.PrivKey, source string) keys.Signer {
	if k == nil {
		return nil
	}
	sk, err := keys.FromPrivKey(k, source)
	if err != nil {
		return nil
	}
	return sk
}

// RoleSigner is the chain account of a role's signer (deployer, operator), or an error that
// names the role and where its key comes from.
func (c *Client) RoleSigner(ctx context.Context, k keys.Signer, role string) (*Signer, error) {
	if k == nil {
		return nil, &vip.MissingKeyError{Role: role}
	}
	sg, err := c.SignerOf(ctx, k)
	if err != nil {
		return nil, fmt.Errorf("%s account: %w", role, err)
	}
	return sg, nil
}
