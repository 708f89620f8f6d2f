package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/vipharness/vipharness/bindings/vipscore"
)

// MaxTxGas is the per-transaction gas cap of Osaka (EIP-7825): 16,777,216.
const MaxTxGas = 1 << 24

// blockGasLimit of the test chains; above MaxTxGas so that the per-tx cap is what binds.
const blockGasLimit = 60_000_000

var chainID = big.NewInt(1337) // the simulated backend's

// osakaRules makes the simulated chain charge Osaka gas, as rollups do: go-ethereum 1.17's
// dev config also schedules Amsterdam and Bogota, whose state gas (EIP-8037/8038) prices a
// new storage slot at ~111k. (localnet/embedded.OsakaRules does the same; it is not imported
// so that these tests do not build the local node and its dependencies.)
func osakaRules(_ *node.Config, ethConf *ethconfig.Config) {
	cfg := *ethConf.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	ethConf.Genesis.Config = &cfg
}

// pragueRules goes back to Prague: no per-transaction gas cap, so one call can add more
// addresses than one data contract holds.
func pragueRules(nodeConf *node.Config, ethConf *ethconfig.Config) {
	osakaRules(nodeConf, ethConf)
	cfg := *ethConf.Genesis.Config
	cfg.OsakaTime, cfg.BPO1Time, cfg.BPO2Time, cfg.BPO3Time, cfg.BPO4Time, cfg.BPO5Time, cfg.UBTTime = nil, nil, nil, nil, nil, nil, nil
	ethConf.Genesis.Config = &cfg
}

// chain is a simulated chain with the contract deployed by owner, and a second funded key.
type chain struct {
	t        testing.TB
	backend  *simulated.Backend
	client   simulated.Client
	owner    *ecdsa.PrivateKey
	stranger *ecdsa.PrivateKey
	contract common.Address
	deployTx *types.Receipt
	b        *vipscore.VipScore
	nonce    map[common.Address]uint64
	maxGas   uint64 // per-tx gas cap
}

// newChain deploys bin at initStage on an Osaka chain.
func newChain(t testing.TB, bin []byte, initStage uint64) *chain {
	t.Helper()
	return newChainWith(t, bin, initStage, osakaRules, MaxTxGas)
}

func newChainWith(t testing.TB, bin []byte, initStage uint64, rules func(*node.Config, *ethconfig.Config), maxGas uint64) *chain {
	t.Helper()
	owner, _ := crypto.GenerateKey()
	stranger, _ := crypto.GenerateKey()
	funds := new(big.Int).Lsh(big.NewInt(1), 100)
	backend := simulated.NewBackend(types.GenesisAlloc{
		crypto.PubkeyToAddress(owner.PublicKey):    {Balance: funds},
		crypto.PubkeyToAddress(stranger.PublicKey): {Balance: funds},
	}, rules, simulated.WithBlockGasLimit(blockGasLimit))
	t.Cleanup(func() { backend.Close() })
	c := &chain{t: t, backend: backend, client: backend.Client(), owner: owner, stranger: stranger,
		b: vipscore.NewVipScore(), nonce: map[common.Address]uint64{}, maxGas: maxGas}

	// Deploy through bind v2 with the binding's constructor packing.
	opts := bind.NewKeyedTransactor(owner, chainID)
	opts.GasTipCap = big.NewInt(1e9) // the simulated miner skips txs tipping less than its minimum
	addr, tx, err := bind.DeployContract(opts, bin, c.client, c.b.PackConstructor(initStage))
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	c.nonce[crypto.PubkeyToAddress(owner.PublicKey)]++
	rc, err := c.mine(tx)
	if err != nil {
		t.Fatalf("deploy: %v", err)
	}
	c.contract, c.deployTx = addr, rc
	return c
}

// send signs and mines one tx with the estimated gas (+20%, within the per-tx cap); a tx
// that would revert comes back as the decoded error of its estimate.
func (c *chain) send(key *ecdsa.PrivateKey, to *common.Address, data []byte) (*types.Receipt, error) {
	c.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	gas, err := c.client.EstimateGas(context.Background(), ethereum.CallMsg{From: from, To: to, Data: data})
	if err != nil {
		return nil, decode(err)
	}
	return c.sendGas(key, to, data, min(gas*12/10, c.maxGas))
}

// sendGas signs and mines one tx with the given gas limit.
func (c *chain) sendGas(key *ecdsa.PrivateKey, to *common.Address, data []byte, gas uint64) (*types.Receipt, error) {
	c.t.Helper()
	from := crypto.PubkeyToAddress(key.PublicKey)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: c.nonce[from], GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(1e10),
		Gas: gas, To: to, Data: data,
	})
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.client.SendTransaction(context.Background(), tx); err != nil {
		return nil, err
	}
	c.nonce[from]++
	return c.mine(tx)
}

// mine commits a block holding tx and returns its receipt; a failed tx is an error.
func (c *chain) mine(tx *types.Transaction) (*types.Receipt, error) {
	c.t.Helper()
	c.backend.Commit()
	// The receipt index catches up just after the block; poll briefly.
	var rc *types.Receipt
	var err error
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc, err = c.client.TransactionReceipt(context.Background(), tx.Hash())
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("receipt of %s: %v", tx.Hash(), err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if rc.Status != types.ReceiptStatusSuccessful {
		return rc, fmt.Errorf("tx failed (gas %d of %d)", rc.GasUsed, tx.Gas())
	}
	return rc, nil
}

func (c *chain) call(data []byte) []byte {
	c.t.Helper()
	out, err := c.client.CallContract(context.Background(), ethereum.CallMsg{To: &c.contract, Data: data}, nil)
	if err != nil {
		c.t.Fatalf("call: %v", decode(err))
	}
	return out
}

// contractError is a decoded custom error.
type contractError struct {
	name string
	args []any
}

func (e *contractError) Error() string { return fmt.Sprintf("%s%v", e.name, e.args) }

// decode turns revert data into the contract's custom error.
func decode(err error) error {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return err
	}
	data, ok := de.ErrorData().(string)
	if !ok {
		return err
	}
	raw := common.FromHex(data)
	a := ABI()
	for _, e := range a.Errors {
		if len(raw) >= 4 && string(raw[:4]) == string(e.ID[:4]) {
			args, uerr := e.Inputs.Unpack(raw[4:])
			if uerr != nil {
				return err
			}
			return &contractError{name: e.Name, args: args}
		}
	}
	return err
}

func errName(err error) string {
	var ce *contractError
	if errors.As(err, &ce) {
		return ce.name
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func (c *chain) update(key *ecdsa.PrivateKey, stage uint64, addrs []common.Address, amounts []uint64) (*types.Receipt, error) {
	return c.send(key, &c.contract, c.b.PackUpdateScores(stage, addrs, amounts))
}

func (c *chain) stage(n uint64) vipscore.StagesOutput {
	out, err := c.b.UnpackStages(c.call(c.b.PackStages(n)))
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *chain) getScores(stage, offset, limit uint64) []vipscore.VipScoreScoreResponse {
	rows, err := c.b.UnpackGetScores(c.call(c.b.PackGetScores(stage, offset, limit)))
	if err != nil {
		c.t.Fatal(err)
	}
	return rows
}

// addresses returns n distinct addresses (distinct across seeds too) and amounts.
func addresses(n int, seed int) ([]common.Address, []uint64) {
	addrs := make([]common.Address, n)
	amounts := make([]uint64, n)
	for i := range addrs {
		addrs[i] = common.BytesToAddress(crypto.Keccak256([]byte(fmt.Sprintf("addr-%d-%d", seed, i)))[12:])
		amounts[i] = uint64(1000 + i)
	}
	return addrs, amounts
}
