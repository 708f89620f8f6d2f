package router

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"github.com/vipharness/vipharness/bindings/ethnode"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/cosmos/cosmos-sdk/types/bech32"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// EVMBackend is the part of an Ethereum JSON-RPC client the EVM signer uses;
// *ethclient.Client satisfies it.
type EVMBackend interface {
	ChainID(ctx context.Context) (*big.Int, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	EstimateGas(ctx context.Context, call ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, txHash common.Hash) (*types.Receipt, error)
}

// EVMSigner signs the evm_tx transactions of a transfer with one private key, sends them
// through an EVM chain's JSON-RPC and waits for their receipts. It signs OP hooks with the
// same key (a Cosmos tx in SIGN_MODE_EIP_191). It is safe for concurrent use: nonces are handed out in order.
type EVMSigner struct {
	key      KeySigner
	addr     common.Address
	backend  EVMBackend
	chainID  *big.Int
	prefix   string
	accounts AccountLookup
	poll     time.Duration
	gasMul   float64

	mu        sync.Mutex
	nonce     uint64
	haveNonce bool
}

// EVMSignerOption configures NewEVMSigner.
type EVMSignerOption func(*EVMSigner)

// WithBech32Prefix sets the prefix of the signer's Cosmos address, used as the OP hook's
// signer (default "init": Initia accounts of eth_secp256k1 keys share the EVM address bytes).
func WithBech32Prefix(p string) EVMSignerOption { return func(s *EVMSigner) { s.prefix = p } }

// WithHookAccounts sets how the signer finds its account number and sequence on an OP
// hook's chain (RESTAccounts reads them from the chains' Cosmos REST).
func WithHookAccounts(l AccountLookup) EVMSignerOption { return func(s *EVMSigner) { s.accounts = l } }

// WithReceiptPoll sets how often the signer asks for a receipt (default 50ms).
func WithReceiptPoll(d time.Duration) EVMSignerOption {
	return func(s *EVMSigner) {
		if d > 0 {
			s.poll = d
		}
	}
}

// WithGasMultiplier scales the estimated gas limit (default 1.25).
func WithGasMultiplier(m float64) EVMSignerOption {
	return func(s *EVMSigner) {
		if m >= 1 {
			s.gasMul = m
		}
	}
}

// KeySigner holds the key of an EVM signer: an in-memory key, or any signer the caller has
// (deployer/keys' keyring, keystore and Ledger signers satisfy it). The key never leaves it.
type KeySigner interface {
	Address() common.Address
	SignEVMTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error)
	// SignPersonal is an EIP-191 personal-message signature, R || S || V.
	SignPersonal(ctx context.Context, msg []byte) ([]byte, error)
}

// ecdsaKey is a KeySigner of a key in memory.
type ecdsaKey struct{ k *ecdsa.PrivateKey }

func (e ecdsaKey) Address() common.Address { return crypto.PubkeyToAddress(e.k.PublicKey) }

func (e ecdsaKey) SignEVMTx(_ context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	return types.SignTx(tx, types.LatestSignerForChainID(chainID), e.k)
}

func (e ecdsaKey) SignPersonal(_ context.Context, msg []byte) ([]byte, error) {
	return crypto.Sign(accounts.TextHash(msg), e.k)
}

// NewEVMSigner returns a signer for the chain behind backend with the private key in hex
// (with or without 0x). It asks the chain for its id once.
func NewEVMSigner(ctx context.Context, backend EVMBackend, privateKeyHex string, opts ...EVMSignerOption) (*EVMSigner, error) {
	key, err := crypto.HexToECDSA(strings.TrimPrefix(privateKeyHex, "0x"))
	if err != nil {
		return nil, fmt.Errorf("evm signer: private key: %w", err)
	}
	return NewEVMSignerWith(ctx, backend, ecdsaKey{key}, opts...)
}

// NewEVMSignerWith returns a signer for the chain behind backend that signs with key.
func NewEVMSignerWith(ctx context.Context, backend EVMBackend, key KeySigner, opts ...EVMSignerOption) (*EVMSigner, error) {
	id, err := backend.ChainID(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm signer: chain id: %w", err)
	}
	s := &EVMSigner{key: key, addr: key.Address(), backend: backend, chainID: id,
		prefix: "init", poll: 50 * time.Millisecond, gasMul: 1.25}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Address is the signer's EVM address.
func (s *EVMSigner) Address() common.Address { return s.addr }

// ChainID is the EVM chain id (decimal), as evm_tx.chain_id names it.
func (s *EVMSigner) ChainID() string { return s.chainID.String() }

// CosmosAddress is the signer's account on Cosmos chains with the signer's bech32 prefix.
func (s *EVMSigner) CosmosAddress() string {
	a, _ := bech32.ConvertAndEncode(s.prefix, s.addr.Bytes())
	return a
}

// SignOPHook signs the hook as Initia's wallet kit does: a Cosmos tx of the hook's messages
// on the hook's chain, with the signer's account number and sequence there (WithHookAccounts),
// signed in SIGN_MODE_EIP_191 with the signer's key; the signer is its bech32 address.
func (s *EVMSigner) SignOPHook(ctx context.Context, hook OPHookResponse) (SignedOPHook, error) {
	if hook.ChainID == "" || len(hook.Hook) == 0 {
		return SignedOPHook{}, errors.New("evm signer: empty op hook")
	}
	if s.accounts == nil {
		return SignedOPHook{}, fmt.Errorf("evm signer: op hook on %s: no account lookup for hook chains (WithHookAccounts)", hook.ChainID)
	}
	msgs := make([]TokenDeposit, len(hook.Hook))
	for i, m := range hook.Hook {
		d, err := ParseTokenDeposit(m)
		if err != nil {
			return SignedOPHook{}, fmt.Errorf("evm signer: %w", err)
		}
		msgs[i] = d
	}
	signer := s.CosmosAddress()
	num, seq, err := s.accounts(ctx, hook.ChainID, signer)
	if err != nil {
		return SignedOPHook{}, fmt.Errorf("evm signer: account %s on %s: %w", signer, hook.ChainID, err)
	}
	tx, err := SignHookTx(ctx, hook.ChainID, num, seq, msgs, s.key.SignPersonal)
	if err != nil {
		return SignedOPHook{}, fmt.Errorf("evm signer: sign op hook: %w", err)
	}
	return SignedOPHook{Signer: signer, Hook: tx}, nil
}

// SignAndBroadcast sends the transaction's ERC-20 approvals and then the transaction
// itself, each waited for until mined; it fails on a reverted receipt. Only evm_tx for the
// signer's chain and address are accepted.
func (s *EVMSigner) SignAndBroadcast(ctx context.Context, tx Tx) (string, string, error) {
	e := tx.EVMTx
	if e == nil {
		return "", "", errors.New("evm signer: not an evm_tx")
	}
	if e.ChainID != s.chainID.String() {
		return "", "", fmt.Errorf("evm signer: tx is for chain %s, signer is on %s", e.ChainID, s.chainID)
	}
	if e.SignerAddress != "" && (!common.IsHexAddress(e.SignerAddress) || common.HexToAddress(e.SignerAddress) != s.addr) {
		return "", "", fmt.Errorf("evm signer: tx is for signer %s, not %s", e.SignerAddress, s.addr.Hex())
	}
	if !common.IsHexAddress(e.To) {
		return "", "", fmt.Errorf("evm signer: to %q is not an address", e.To)
	}
	value := new(big.Int)
	if e.Value != "" {
		if _, ok := value.SetString(e.Value, 10); !ok || value.Sign() < 0 {
			return "", "", fmt.Errorf("evm signer: value %q is not a decimal amount", e.Value)
		}
	}
	data, err := decodeHex(e.Data)
	if err != nil {
		return "", "", fmt.Errorf("evm signer: data: %w", err)
	}
	for i, a := range e.RequiredERC20Approvals {
		call, err := approveCall(a)
		if err != nil {
			return "", "", fmt.Errorf("evm signer: approval %d: %w", i, err)
		}
		token := common.HexToAddress(a.TokenContract)
		if _, err := s.send(ctx, token, new(big.Int), call); err != nil {
			return "", "", fmt.Errorf("evm signer: approval %d: %w", i, err)
		}
	}
	hash, err := s.send(ctx, common.HexToAddress(e.To), value, data)
	if err != nil {
		return "", "", err
	}
	return hash.Hex(), e.ChainID, nil
}

// send signs and sends one transaction and waits for its successful receipt.
func (s *EVMSigner) send(ctx context.Context, to common.Address, value *big.Int, data []byte) (common.Hash, error) {
	gas, err := s.backend.EstimateGas(ctx, ethereum.CallMsg{From: s.addr, To: &to, Value: value, Data: data})
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm signer: estimate gas: %w", err)
	}
	gas = uint64(float64(gas) * s.gasMul)
	tip, err := s.backend.SuggestGasTipCap(ctx)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm signer: gas tip: %w", err)
	}
	head, err := s.backend.HeaderByNumber(ctx, nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm signer: head: %w", err)
	}
	feeCap := new(big.Int).Set(tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	}

	s.mu.Lock()
	if !s.haveNonce {
		n, err := s.backend.PendingNonceAt(ctx, s.addr)
		if err != nil {
			s.mu.Unlock()
			return common.Hash{}, fmt.Errorf("evm signer: nonce: %w", err)
		}
		s.nonce, s.haveNonce = n, true
	}
	signed, err := s.key.SignEVMTx(ctx, types.NewTx(&types.DynamicFeeTx{
		ChainID: s.chainID, Nonce: s.nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data,
	}), s.chainID)
	if err == nil {
		if err = s.backend.SendTransaction(ctx, signed); err == nil {
			s.nonce++
		} else {
			s.haveNonce = false // ask the chain again next time
		}
	}
	s.mu.Unlock()
	if err != nil {
		return common.Hash{}, fmt.Errorf("evm signer: send: %w", err)
	}

	for {
		rc, err := s.backend.TransactionReceipt(ctx, signed.Hash())
		if err == nil {
			if rc.Status != types.ReceiptStatusSuccessful {
				return signed.Hash(), fmt.Errorf("evm signer: tx %s reverted", signed.Hash().Hex())
			}
			return signed.Hash(), nil
		}
		if !receiptPending(err) {
			return signed.Hash(), fmt.Errorf("evm signer: receipt of %s: %w", signed.Hash().Hex(), err)
		}
		if err := sleep(ctx, s.poll); err != nil {
			return signed.Hash(), fmt.Errorf("evm signer: waiting for %s: %w", signed.Hash().Hex(), err)
		}
	}
}

// approveCall is the calldata of ERC-20 approve(spender, amount).
func approveCall(a ERC20Approval) ([]byte, error) {
	if !common.IsHexAddress(a.TokenContract) {
		return nil, fmt.Errorf("token_contract %q is not an address", a.TokenContract)
	}
	if !common.IsHexAddress(a.Spender) {
		return nil, fmt.Errorf("spender %q is not an address", a.Spender)
	}
	amount, ok := new(big.Int).SetString(a.Amount, 10)
	if !ok || amount.Sign() < 0 || amount.BitLen() > 256 {
		return nil, fmt.Errorf("amount %q is not a uint256", a.Amount)
	}
	out := make([]byte, 0, 4+64)
	out = append(out, crypto.Keccak256([]byte("approve(address,uint256)"))[:4]...)
	out = append(out, common.LeftPadBytes(common.HexToAddress(a.Spender).Bytes(), 32)...)
	out = append(out, common.LeftPadBytes(amount.Bytes(), 32)...)
	return out, nil
}

// decodeHex reads evm_tx data: hex with or without 0x (the service sends it without).
func decodeHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return nil, nil
	}
	return hexutil.Decode("0x" + s)
}

// receiptPending: no receipt yet, or the node's tx index is still catching up (geth
// answers "transaction indexing is in progress").
func receiptPending(err error) bool { return ethnode.ReceiptPending(err) }
