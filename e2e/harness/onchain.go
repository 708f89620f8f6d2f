package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"

	wasmtypes "github.com/CosmWasm/wasmd/x/wasm/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/vipharness/vipharness/bindings/initiamove"
	"github.com/vipharness/vipharness/bindings/movebcs"
	"github.com/vipharness/vipharness/bindings/vipscore"
	"github.com/vipharness/vipharness/deployer/vm/cosmostx"
)

// Height is the chain's latest block height.
func (e *Env) Height(ctx context.Context) (uint64, error) { return e.Chain.Height(ctx) }

// AddrKey is an account's 20 address bytes in hex, whichever way the address is written
// (0x hex, bech32, a 32-byte Move address).
func AddrKey(a string) string {
	if _, bz, err := bech32.DecodeAndConvert(a); err == nil {
		return fmt.Sprintf("%x", bz)
	}
	b := common.FromHex(a)
	if len(b) > 20 {
		b = b[len(b)-20:]
	}
	return fmt.Sprintf("%x", common.LeftPadBytes(b, 20))
}

// Updates scans the blocks after height for successful score-update txs to contract and
// returns how often each address (AddrKey) was sent and how many such txs there were.
func (e *Env) Updates(ctx context.Context, contract string, after uint64) (map[string]int, int, error) {
	sent, txs := map[string]int{}, 0
	head, err := e.Height(ctx)
	if err != nil {
		return nil, 0, err
	}
	if e.chain == nil { // an EVM rollup: updateScores calls in its blocks
		c, err := ethclient.DialContext(ctx, e.Rollup.Endpoints().JSONRPC)
		if err != nil {
			return nil, 0, err
		}
		defer c.Close()
		method := vipscore.NewVipScore().GetABI().Methods["updateScores"]
		for h := after + 1; h <= head; h++ {
			b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(h))
			if err != nil {
				return nil, 0, err
			}
			for _, tx := range b.Transactions() {
				if tx.To() == nil || *tx.To() != common.HexToAddress(contract) || !bytes.HasPrefix(tx.Data(), method.ID) {
					continue
				}
				rc, err := c.TransactionReceipt(ctx, tx.Hash())
				if err != nil {
					return nil, 0, err
				}
				if rc.Status != types.ReceiptStatusSuccessful {
					continue
				}
				args, err := method.Inputs.Unpack(tx.Data()[4:])
				if err != nil {
					return nil, 0, err
				}
				txs++
				for _, a := range args[1].([]common.Address) {
					sent[AddrKey(a.Hex())]++
				}
			}
		}
		return sent, txs, nil
	}
	// A client that decodes both VMs' messages (the Env's own knows its VM's only).
	ep := e.Rollup.Endpoints()
	c, err := cosmostx.Dial(ctx, ep.CometRPC, ep.REST, cosmostx.WithMessages(wasmtypes.RegisterInterfaces, initiamove.RegisterInterfaces))
	if err != nil {
		return nil, 0, err
	}
	decode := c.Enc.TxConfig.TxDecoder()
	for h := after + 1; h <= head; h++ {
		b, err := c.Node.Block(ctx, h)
		if err != nil {
			return nil, 0, err
		}
		for _, raw := range b.Txs {
			tx, err := decode(raw)
			if err != nil {
				return nil, 0, err
			}
			out, err := c.Lookup(ctx, fmt.Sprintf("%X", cmttypes.Tx(raw).Hash()))
			if err != nil {
				return nil, 0, err
			}
			if !out.Success {
				continue
			}
			for _, m := range tx.GetMsgs() {
				addrs, ok, err := e.updated(m, contract)
				if err != nil {
					return nil, 0, err
				}
				if !ok {
					continue
				}
				txs++
				for _, a := range addrs {
					sent[AddrKey(a)]++
				}
			}
		}
	}
	return sent, txs, nil
}

// updated returns the addresses a score-update message sends to contract.
func (e *Env) updated(m any, contract string) ([]string, bool, error) {
	switch msg := m.(type) {
	case *wasmtypes.MsgExecuteContract:
		if msg.Contract != contract {
			return nil, false, nil
		}
		var body struct {
			UpdateScores *struct {
				Scores [][2]json.RawMessage `json:"scores"`
			} `json:"update_scores"`
		}
		if err := json.Unmarshal(msg.Msg, &body); err != nil || body.UpdateScores == nil {
			return nil, false, nil
		}
		var out []string
		for _, pair := range body.UpdateScores.Scores {
			var a string
			if err := json.Unmarshal(pair[0], &a); err != nil {
				return nil, false, err
			}
			out = append(out, a)
		}
		return out, true, nil
	case *initiamove.MsgExecute:
		if msg.ModuleName != "vip_score" || msg.FunctionName != "update_score_script" || len(msg.Args) < 2 {
			return nil, false, nil
		}
		addrs, err := movebcs.ParseArgAddresses(msg.Args[1])
		if err != nil {
			return nil, false, err
		}
		var out []string
		for _, a := range addrs {
			out = append(out, fmt.Sprintf("0x%x", a[:]))
		}
		return out, true, nil
	}
	return nil, false, nil
}

// NewBlock makes the rollup seal a block now: a small transfer from the second funded
// account to a fresh key. Initia's minitiad makes blocks with txs, and an empty one only once
// a minute (create_empty_blocks_interval), so a spec that needs a block past a time (a stage's
// end) makes one, as a busy rollup would have; the project's own rollups seal on an interval
// anyway.
func (e *Env) NewBlock(ctx context.Context) error {
	if e.stranger == nil {
		return fmt.Errorf("new block on %s: no second funded account", e.Target)
	}
	from, err := e.signer(e.stranger)
	if err != nil {
		return err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	to, err := e.signer(secret)
	if err != nil {
		return err
	}
	toAddr, err := e.Chain.Address(to)
	if err != nil {
		return err
	}
	return e.Chain.Fund(ctx, from, toAddr, 1)
}
