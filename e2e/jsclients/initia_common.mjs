// The Initia.js calls every Cosmos rollup (Move, Wasm) answers alike: node, accounts, balances,
// fee discovery, each sign mode, tx lookup and search, blocks and the CometBFT websocket. Each
// goes through check(), so the Go spec counts and asserts every one.
import {
  AuthInfo, Coins, Fee, MnemonicKey, ModeInfo, MsgSend, RESTClient, SignDoc, SignMode, SignerInfo, Tx, TxBody, WebSocketClient, isTxError,
} from "@initia/initia.js";
import txpb from "@initia/initia.proto/cosmos/tx/v1beta1/tx.js";
import { check, env, must, notImplemented } from "./report.mjs";

// The environment the Go spec passes: the rollup's faces and a funded mnemonic.
export function rollup() {
  return {
    rest: env("REST_URL"),
    rpc: env("RPC_URL"),
    chainId: env("CHAIN_ID"),
    mnemonic: env("MNEMONIC"),
    mnemonic2: env("MNEMONIC2"), // a second funded account: the DIRECT_AUX tx's aux signer
    denom: env("FEE_DENOM"),
  };
}

// landed broadcasts a signed tx and fails unless it was included with code 0.
export async function landed(rest, tx) {
  const res = await rest.tx.broadcast(tx);
  if (isTxError(res)) throw new Error(`tx refused: code ${res.code} (${res.codespace}): ${res.raw_log}`);
  must(Number(res.height) > 0, `an inclusion height, got ${res.height}`);
  return res;
}

// wsURL is the CometBFT websocket of an RPC base URL, as apps write it.
function wsURL(rpc) {
  return rpc.replace(/^http/, "ws").replace(/\/$/, "") + "/websocket";
}

// subscribe opens a WebSocketClient subscribed to event (with query) and resolves with the
// first message, or rejects after ms.
function subscribe(rpc, event, query, ms) {
  const ws = new WebSocketClient(wsURL(rpc), 0);
  const got = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} event within ${ms} ms`)), ms);
    ws.subscribe(event, query, (msg) => {
      clearTimeout(timer);
      resolve(msg);
    });
  });
  ws.start();
  return { got: got.finally(() => ws.destroy()), ws };
}

// opened resolves when the client's socket is open (subscriptions are sent on open).
function opened(ws, ms) {
  return new Promise((resolve, reject) => {
    if (ws.isConnected) return resolve();
    const timer = setTimeout(() => reject(new Error(`websocket did not open within ${ms} ms`)), ms);
    ws.once("connect", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

// cosmosChecks runs the shared calls with the wallet of key (its account funded with denom)
// and returns what the VM-specific part builds on. overdraft is what the VM's minitia
// writes in raw_log for a send above the balance.
export async function cosmosChecks(r, key, overdraft) {
  // A RESTClient with no gasPrices: the SDK discovers them itself (rest.gasPrices()).
  const rest = new RESTClient(r.rest, { chainId: r.chainId });
  const wallet = rest.wallet(key);
  const addr = key.accAddress;

  await check("tendermint.nodeInfo", async () => {
    const info = await rest.tendermint.nodeInfo();
    must(info.default_node_info?.network === r.chainId, `network ${r.chainId}, got ${info.default_node_info?.network}`);
    must(info.application_version?.name, "application_version.name");
  });
  await check("tendermint.chainId", async () => must((await rest.tendermint.chainId()) === r.chainId, `chain id ${r.chainId}`));
  await check("tendermint.syncing", async () => must((await rest.tendermint.syncing()) === false, "syncing false"));
  const latest = await check("tendermint.blockInfo latest", async () => {
    const b = await rest.tendermint.blockInfo();
    must(Number(b.block.header.height) > 0, "a latest height");
    must(b.block.header.chain_id === r.chainId, "the block's chain id");
    return Number(b.block.header.height);
  });
  await check("tendermint.blockInfo by height", async () => {
    const b = await rest.tendermint.blockInfo(1);
    must(b.block.header.height === "1", `height 1, got ${b.block.header.height}`);
    must(b.block_id?.hash, "a block id");
  });
  await check("auth.accountInfo", async () => {
    const acc = await rest.auth.accountInfo(addr);
    must(acc.getAccountNumber() >= 0, "an account number");
  });
  await check("bank.balance", async () => {
    const [coins] = await rest.bank.balance(addr);
    must(BigInt(coins.get(r.denom)?.amount ?? 0) > 0n, `a ${r.denom} balance for ${addr}`);
  });
  await check("bank.balanceByDenom", async () => {
    const c = await rest.bank.balanceByDenom(addr, r.denom);
    must(BigInt(c.amount) > 0n, `a ${r.denom} balance`);
  });
  await check("opchild.parameters min_gas_prices", async () => {
    const p = await rest.opchild.parameters();
    must(p.min_gas_prices.get(r.denom), `min_gas_prices in ${r.denom}, got ${p.min_gas_prices}`);
  });
  // Initia's tx module gas prices are the L1's routes: a minitia answers 501.
  await check("tx.gasPrices refused as on a minitia", async () => notImplemented(() => rest.tx.gasPrices()));
  await check("tx.gasPrice refused as on a minitia", async () => notImplemented(() => rest.tx.gasPrice(r.denom)));
  await check("rest.gasPrices (default fee discovery)", async () => {
    const p = await rest.gasPrices();
    must(p && String(p).endsWith(r.denom), `discovered gas prices in ${r.denom}, got ${p}`);
  });

  // Subscribe before sending, so the Tx event of the next send reaches us.
  const block = subscribe(r.rpc, "NewBlock", {}, 15000);
  const txSub = subscribe(r.rpc, "Tx", { "message.sender": addr }, 15000);
  await Promise.allSettled([opened(block.ws, 5000), opened(txSub.ws, 5000)]);

  const send = () => new MsgSend(addr, addr, `1${r.denom}`);
  const sent = {};
  // Each sign mode Initia's tx config accepts and the SDK signs; fees discovered by the SDK.
  for (const [name, mode] of [
    ["SIGN_MODE_DIRECT", SignMode.SIGN_MODE_DIRECT],
    ["SIGN_MODE_LEGACY_AMINO_JSON", SignMode.SIGN_MODE_LEGACY_AMINO_JSON],
    ["SIGN_MODE_EIP_191", SignMode.SIGN_MODE_EIP_191],
  ]) {
    sent[name] = await check(`wallet.createAndSignTx default fees ${name}`, async () => {
      const tx = await wallet.createAndSignTx({ msgs: [send()], memo: `jsclients ${name}`, signMode: mode });
      must(BigInt(tx.auth_info.fee.amount.get(r.denom)?.amount ?? 0) > 0n, `a fee in ${r.denom}, got ${tx.auth_info.fee.amount}`);
      const res = await landed(rest, tx);
      return { hash: res.txhash, height: Number(res.height) };
    });
  }

  // SIGN_MODE_DIRECT_AUX: the SDK's Key.signTx refuses it ("not supported sign mode"), so the
  // tx is put together from the SDK's own types, as a wallet kit does: the aux signer signs
  // SignDocDirectAux (no fee), the fee payer signs the whole tx in DIRECT.
  sent.SIGN_MODE_DIRECT_AUX = await check("SIGN_MODE_DIRECT_AUX (aux signer, DIRECT fee payer)", async () => {
    const aux = defaultKeyLike(key, r.mnemonic2);
    const [payerAcc, auxAcc] = await Promise.all([rest.auth.accountInfo(addr), rest.auth.accountInfo(aux.accAddress)]);
    const body = new TxBody([new MsgSend(aux.accAddress, aux.accAddress, `1${r.denom}`)], "jsclients SIGN_MODE_DIRECT_AUX");
    const gas = 300000;
    const fee = new Fee(gas, new Coins(await rest.gasPrices()).mul(gas).toIntCeilCoins(), addr);
    const single = (mode) => new ModeInfo(new ModeInfo.Single(mode));
    const authInfo = new AuthInfo([
      new SignerInfo(aux.publicKey, auxAcc.getSequenceNumber(), single(SignMode.SIGN_MODE_DIRECT_AUX)),
      new SignerInfo(key.publicKey, payerAcc.getSequenceNumber(), single(SignMode.SIGN_MODE_DIRECT)),
    ], fee);
    const auxDoc = txpb.SignDocDirectAux.encode({
      bodyBytes: body.toBytes(), publicKey: aux.publicKey.packAny(), chainId: r.chainId,
      accountNumber: BigInt(auxAcc.getAccountNumber()), sequence: BigInt(auxAcc.getSequenceNumber()),
    }).finish();
    const auxSig = await aux.sign(Buffer.from(auxDoc));
    const payerSig = await key.sign(Buffer.from(new SignDoc(r.chainId, payerAcc.getAccountNumber(), payerAcc.getSequenceNumber(), authInfo, body).toBytes()));
    const res = await landed(rest, new Tx(body, authInfo, [auxSig.toString("base64"), payerSig.toString("base64")]));
    return { hash: res.txhash, height: Number(res.height), sender: aux.accAddress };
  });

  await check("websocket NewBlock", async () => {
    const msg = await block.got;
    must(msg.type === "tendermint/event/NewBlock", `a NewBlock event, got ${msg.type}`);
    must(Number(msg.value?.block?.header?.height) > 0, "the new block's height");
  });
  await check("websocket Tx", async () => {
    const msg = await txSub.got;
    must(msg.type === "tendermint/event/Tx", `a Tx event, got ${msg.type}`);
    must(msg.value?.TxResult?.result !== undefined || msg.value?.TxResult, "the tx result");
  });

  const first = sent.SIGN_MODE_DIRECT;
  await check("tx.txInfo", async () => {
    must(first, "the DIRECT send to have landed");
    const info = await rest.tx.txInfo(first.hash);
    must(info.txhash === first.hash && info.height === first.height, "the tx by hash");
    must(info.tx.body.memo === "jsclients SIGN_MODE_DIRECT", "its memo");
  });
  await check("tx.txInfosByHeight", async () => {
    must(first, "the DIRECT send to have landed");
    const infos = await rest.tx.txInfosByHeight(first.height);
    must(infos.some((i) => i.txhash === first.hash), "the send in its block");
  });
  await check("tx.search by message.sender", async () => {
    const res = await rest.tx.search({ query: [{ key: "message.sender", value: addr }] });
    const hashes = res.txs.map((t) => t.txhash);
    for (const [name, s] of Object.entries(sent)) {
      if (!s?.sender) must(s && hashes.includes(s.hash), `the ${name} send found`);
    }
    must(res.total >= 3, `a total, got ${res.total}`);
  });
  await check("tx.search by tx.height", async () => {
    must(first, "the DIRECT send to have landed");
    const res = await rest.tx.search({ query: [{ key: "tx.height", value: String(first.height) }] });
    must(res.txs.some((t) => t.txhash === first.hash), "the send at its height");
  });
  await check("refused tx raw_log as a node writes it", async () => {
    // More than any funded balance, within u64: a Move rollup holds coin amounts in u64 and
    // a real minimove refuses a larger one otherwise (code 111222, "Uint64() out of bounds").
    const tx = await wallet.createAndSignTx({ msgs: [new MsgSend(addr, addr, `18446744073709551615${r.denom}`)], gas: "200000" });
    // The bank module refuses it at delivery (CheckTx runs the ante handler only).
    const res = await rest.tx.broadcast(tx);
    must(isTxError(res) && Number(res.code) !== 0, `a refusal, got code ${res.code}`);
    must(!/\.go:\d+/.test(res.raw_log), `no source path in raw_log: ${res.raw_log}`);
    must(overdraft.test(res.raw_log), `the reason in raw_log: ${res.raw_log}`);
  });
  return { rest, wallet, addr, latest };
}

// defaultKeyLike derives mnemonic's key of the same kind as key (eth_secp256k1 or not).
function defaultKeyLike(key, mnemonic) {
  return key.eth ? new MnemonicKey({ mnemonic }) : new MnemonicKey({ mnemonic, coinType: 118, eth: false });
}

// defaultKey is what MnemonicKey({mnemonic}) derives with the SDK's defaults (coin type 60,
// eth_secp256k1), as Initia's wallets do.
export function defaultKey(mnemonic) {
  return new MnemonicKey({ mnemonic });
}
