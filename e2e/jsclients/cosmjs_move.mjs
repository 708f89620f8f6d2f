// CosmJS 0.39 against a fresh Move rollup, as a Cosmos app that is not Initia-specific reads
// one: the StargateClient's reads (balances, blocks, accounts, tx search), the gRPC query
// paths behind them (abci_query), and a bank send signed by the mnemonic's coin type 118
// (secp256k1) account, which CosmJS derives. The mnemonic's coin type 60 (eth_secp256k1)
// account first sends with Initia.js, so that its key is on chain; CosmJS reads that account
// with an accountParser of its own (the default one knows no eth_secp256k1 key).
import { SigningStargateClient, StargateClient, GasPrice, QueryClient, accountFromAny, createProtobufRpcClient, setupBankExtension, setupAuthExtension } from "@cosmjs/stargate";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { makeCosmoshubPath } from "@cosmjs/amino";
import { connectComet } from "@cosmjs/tendermint-rpc";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryClientImpl as AuthQuery } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { QueryClientImpl as BankQuery } from "cosmjs-types/cosmos/bank/v1beta1/query";
import { ServiceClientImpl as CometService } from "cosmjs-types/cosmos/base/tendermint/v1beta1/query";
import { QueryClientImpl as UpgradeQuery } from "cosmjs-types/cosmos/upgrade/v1beta1/query";
import { MnemonicKey, MsgSend, RESTClient, isTxError } from "@initia/initia.js";
import { check, env, must, recordGas } from "./report.mjs";

const rpc = env("RPC_URL");
const chainId = env("CHAIN_ID");
const denom = env("FEE_DENOM");
const prefix = env("BECH32_PREFIX");
const gasPrice = GasPrice.fromString(env("GAS_PRICE"));
const addr60 = env("COIN_TYPE60_ADDRESS");
const ethPubKeyType = "/initia.crypto.v1beta1.ethsecp256k1.PubKey";

const wallet = await DirectSecp256k1HdWallet.fromMnemonic(env("MNEMONIC"), { prefix });
const [{ address: addr118 }] = await wallet.getAccounts();
// A fresh account of the same mnemonic, never funded: the bank send's recipient.
const [{ address: fresh }] = await (await DirectSecp256k1HdWallet.fromMnemonic(env("MNEMONIC"), { prefix, hdPaths: [makeCosmoshubPath(7)] })).getAccounts();

// accountParser: an account whose key is Initia's eth_secp256k1 keeps its key as the amino
// JSON kind Initia names; every other account as CosmJS parses it.
function initiaAccountParser(any) {
  if (any.typeUrl === "/cosmos.auth.v1beta1.BaseAccount") {
    const acc = BaseAccount.decode(any.value);
    if (acc.pubKey?.typeUrl === ethPubKeyType) {
      // The proto PubKey is { key: bytes } (field 1): a 33-byte compressed key.
      const key = acc.pubKey.value.subarray(2);
      return {
        address: acc.address, accountNumber: Number(acc.accountNumber), sequence: Number(acc.sequence),
        pubkey: { type: "initia/PubKeyEthSecp256k1", value: Buffer.from(key).toString("base64") },
      };
    }
  }
  return accountFromAny(any);
}

let client, signer;
await check("StargateClient.connect (Comet38)", async () => {
  client = await StargateClient.connect(rpc, { accountParser: initiaAccountParser });
  must((await client.getChainId()) === chainId, `chain id ${chainId}`);
});
await check("mnemonic coin type 118 account is the funded one", async () => {
  must(addr118 === env("COIN_TYPE118_ADDRESS"), `${env("COIN_TYPE118_ADDRESS")}, got ${addr118}`);
});
await check("getHeight", async () => must((await client.getHeight()) > 0, "a height"));
await check("getBlock latest", async () => {
  const b = await client.getBlock();
  must(b.header.chainId === chainId && b.header.height > 0 && b.id.length === 64, "the latest block");
});
await check("getBlock 1", async () => must((await client.getBlock(1)).header.height === 1, "block 1"));
await check("getBalance (coin type 118)", async () => {
  must(BigInt((await client.getBalance(addr118, denom)).amount) > 0n, `a ${denom} balance`);
});
await check("getAllBalances (coin type 60)", async () => {
  const all = await client.getAllBalances(addr60);
  must(all.some((c) => c.denom === denom && BigInt(c.amount) > 0n), `a ${denom} balance: ${JSON.stringify(all)}`);
});
await check("getBalanceStaked refused (no x/staking on a minitia)", async () => {
  let v, err;
  try {
    v = await client.getBalanceStaked(addr118);
  } catch (e) {
    err = e;
  }
  // A minitia has no x/staking: the query path is unknown to it, as on miniwasm/minimove.
  must(err && /unknown query path|not found|unknown/i.test(err.message), `the chain's refusal, got ${err?.message ?? JSON.stringify(v)}`);
});

// The coin type 60 account signs with Initia.js (eth_secp256k1), so its key is on chain.
await check("Initia.js MsgSend (coin type 60) puts an eth_secp256k1 key on chain", async () => {
  const key = new MnemonicKey({ mnemonic: env("MNEMONIC") });
  must(key.accAddress === addr60, `${addr60}, got ${key.accAddress}`);
  const rest = new RESTClient(env("REST_URL"), { chainId });
  const res = await rest.tx.broadcast(await rest.wallet(key).createAndSignTx({ msgs: [new MsgSend(addr60, addr60, `1${denom}`)] }));
  must(!isTxError(res), `included: ${res.raw_log}`);
});
await check("getAccount (eth_secp256k1) with an accountParser", async () => {
  const acc = await client.getAccount(addr60);
  must(acc && acc.sequence === 1 && acc.pubkey?.type === "initia/PubKeyEthSecp256k1", JSON.stringify(acc));
  must(Buffer.from(acc.pubkey.value, "base64").length === 33, "a 33-byte compressed key");
});
await check("getAccount with CosmJS's own parser refuses the eth_secp256k1 key", async () => {
  const plain = await StargateClient.connect(rpc);
  let err;
  try {
    await plain.getAccount(addr60);
  } catch (e) {
    err = e;
  }
  plain.disconnect();
  must(err && err.message.includes(ethPubKeyType), `CosmJS names the key type, got ${err?.message}`);
});

let sent;
await check("SigningStargateClient sendTokens (coin type 118, fee auto)", async () => {
  signer = await SigningStargateClient.connectWithSigner(rpc, wallet, { gasPrice });
  const gas = recordGas(signer);
  const res = gas("bank MsgSend", await signer.sendTokens(addr118, fresh, [{ denom, amount: "12345" }], "auto", "cosmjs move"));
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
  sent = res;
  must((await client.getBalance(fresh, denom)).amount === "12345", "the recipient's balance");
});
await check("getAccount (secp256k1) after its first tx", async () => {
  const acc = await client.getAccount(addr118);
  must(acc && Number(acc.sequence) === 1 && acc.pubkey?.type === "tendermint/PubKeySecp256k1", `sequence 1 and a secp256k1 key: ${acc?.sequence} ${acc?.pubkey?.type}`);
});
await check("getTx of the send", async () => {
  const tx = await client.getTx(sent.transactionHash);
  must(tx && tx.code === 0 && tx.height === sent.height, JSON.stringify(tx?.height));
});
await check("searchTx by message.sender finds the send", async () => {
  const res = await client.searchTx([{ key: "message.sender", value: addr118 }]);
  must(res.length === 1 && res[0].hash === sent.transactionHash, `one tx, got ${res.length}`);
});
await check("searchTx by tx.height finds the send", async () => {
  const res = await client.searchTx(`tx.height=${sent.height}`);
  must(res.some((t) => t.hash === sent.transactionHash), `the send at ${sent.height}`);
});
await check("searchTx with no hits is []", async () => {
  const res = await client.searchTx([{ key: "message.sender", value: fresh }]);
  must(Array.isArray(res) && res.length === 0, `[], got ${JSON.stringify(res)}`);
});
await check("getTx of an unknown hash is null", async () => must((await client.getTx("AB".repeat(32))) === null, "null"));

// The gRPC query paths (abci_query) an app reads through QueryClient.
const comet = await connectComet(rpc);
const query = QueryClient.withExtensions(comet, setupAuthExtension, setupBankExtension);
const grpc = createProtobufRpcClient(query);
await check("bank totalSupply", async () => {
  const res = await query.bank.totalSupply();
  must(res.supply.some((c) => c.denom === denom && BigInt(c.amount) > 0n), JSON.stringify(res.supply));
});
await check("bank supplyOf", async () => must(BigInt((await query.bank.supplyOf(denom)).amount) > 0n, "a supply"));
await check("bank SpendableBalances", async () => {
  const res = await new BankQuery(grpc).SpendableBalances({ address: addr118 });
  must(res.balances.some((c) => c.denom === denom), JSON.stringify(res.balances));
});
await check("bank Params", async () => must((await new BankQuery(grpc).Params()).params?.defaultSendEnabled === true, "send enabled"));
await check("auth account", async () => must((await query.auth.account(addr118))?.typeUrl === "/cosmos.auth.v1beta1.BaseAccount", "a BaseAccount"));
await check("auth Params", async () => must((await new AuthQuery(grpc).Params()).params?.maxMemoCharacters > 0n, "auth params"));
await check("auth ModuleAccounts", async () => {
  const res = await new AuthQuery(grpc).ModuleAccounts();
  must(res.accounts.length > 0, "module accounts");
});
await check("tendermint GetLatestValidatorSet", async () => {
  const res = await new CometService(grpc).GetLatestValidatorSet({});
  must(res.validators.length === 1 && res.blockHeight > 0n, `one validator, got ${res.validators.length}`);
});
await check("upgrade ModuleVersions", async () => {
  const res = await new UpgradeQuery(grpc).ModuleVersions({ moduleName: "" });
  must(res.moduleVersions.some((m) => m.name === "bank"), JSON.stringify(res.moduleVersions.map((m) => m.name)));
});
client?.disconnect();
signer?.disconnect();
comet.disconnect();
