package evm

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/vipharness/vipharness/deployer/push"
)

// sendNode answers eth_sendRawTransaction with refusal (nil: taken) and knows the txs in
// known by hash, as a pending tx (no block).
type sendNode struct {
	refusal error
	known   map[common.Hash]*types.Transaction
}

func (n sendNode) SendRawTransaction(raw hexutil.Bytes) (common.Hash, error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return common.Hash{}, err
	}
	return tx.Hash(), n.refusal
}

func (n sendNode) GetTransactionByHash(hash common.Hash) (any, error) {
	if tx, ok := n.known[hash]; ok {
		return tx, nil
	}
	return nil, nil
}

// A minievm answers a tx its mempool already holds (a re-broadcast) with an empty -32000:
// the broadcast asks the node for the tx before it calls the send refused.
func TestBroadcastTellsARefusalWithoutWordsByTheTx(t *testing.T) {
	key, _ := crypto.GenerateKey()
	tx, err := types.SignNewTx(key, types.NewEIP155Signer(big.NewInt(7)), &types.LegacyTx{Nonce: 3, GasPrice: big.NewInt(14), Gas: 100_000, To: &common.Address{1}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := tx.MarshalBinary()
	for _, tc := range []struct {
		name     string
		node     sendNode
		rejected string // "" when the broadcast stands
	}{
		{"taken", sendNode{}, ""},
		{"already known (geth)", sendNode{refusal: errors.New("already known")}, ""},
		{"no words, the node holds the tx", sendNode{refusal: errors.New(""), known: map[common.Hash]*types.Transaction{tx.Hash(): tx}}, ""},
		{"no words, the node does not know the tx", sendNode{refusal: errors.New("")}, "refused tx " + tx.Hash().Hex() + " without a reason"},
		{"a refusal with words", sendNode{refusal: errors.New("insufficient fee")}, "insufficient fee"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := contractServedBy(t, map[string]any{"eth": tc.node}).broadcast(context.Background(), raw)
			switch {
			case tc.rejected == "" && err != nil:
				t.Fatalf("broadcast: %v, want it to stand", err)
			case tc.rejected != "" && (!push.IsRejected(err) || !strings.Contains(err.Error(), tc.rejected)):
				t.Fatalf("broadcast: %v, want a rejection naming %q", err, tc.rejected)
			}
		})
	}
}
