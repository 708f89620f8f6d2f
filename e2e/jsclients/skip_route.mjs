// The Skip Go SDK (@skip-go/client), used as an application would, against the routing
// stand-in and the local EVM rollup: chains, assets, balances, route, messages, then
// executeRoute with a local EVM signer (viem over the rollup's JSON-RPC) on the IBC route,
// and on the OP-hook route the signed OP hook built as Initia's wallet kit (interwovenkit)
// builds it: /op-hook, the hook messages signed as a Cosmos tx with eth_secp256k1
// (SIGN_MODE_EIP_191 over the amino JSON sign doc), msgs posted with signed_op_hook, the
// evm_tx sent, then track and status through the SDK until the transfer completes.
//
// Env: ROUTER_URL, EVM_RPC_URL, EVM_CHAIN_ID, DEV_PRIVATE_KEY, HOOK_REST_URL (the hook
// chain's Cosmos REST, for the signer's account number and sequence).
import {
  setClientOptions, chains, assets, balances, route, messages, executeRoute,
  trackTransaction, transactionStatus, waitForTransaction,
} from "@skip-go/client";
import { createWalletClient, createPublicClient, http, defineChain } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { bech32 } from "bech32";
import { makeSignDoc, serializeSignDoc } from "@cosmjs/amino";
import { TxBody, AuthInfo, Tx } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { SignMode } from "cosmjs-types/cosmos/tx/signing/v1beta1/signing";
import { MsgInitiateTokenDeposit } from "@initia/opinit.proto/opinit/ophost/v1/tx.js";
import { PubKey } from "@initia/initia.proto/initia/crypto/v1beta1/ethsecp256k1/keys.js";
import { check, must, env } from "./report.mjs";

const apiUrl = env("ROUTER_URL");
const rpc = env("EVM_RPC_URL");
const evmChain = env("EVM_CHAIN_ID");
const hookRest = env("HOOK_REST_URL");
const account = privateKeyToAccount(env("DEV_PRIVATE_KEY"));
const l1 = "initiation-2";
const ethOnL1 = "ibc/407EA0C82DB498E018FF454F628E9CA9FFE16F1C07BA49449F1CEA78D24D04B1";
const moveChain = "minimove-1";
const ethOnMove = "l2/88ac0c14a803e03942fecd6881f8f6f5aeffb090bf112011e0346c0b9d018859";
const toInit = (hex) => bech32.encode("init", bech32.toWords(Buffer.from(hex.slice(2), "hex")));
const onInit = toInit(account.address);

const chain = defineChain({
  id: Number(evmChain), name: "local-minievm",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});
const wallet = createWalletClient({ account, chain, transport: http(rpc) });
const pub = createPublicClient({ chain, transport: http(rpc) });

setClientOptions({ apiUrl });

await check("chains", async () => {
  const list = await chains({ includeEvm: true });
  const evm = list?.find((c) => c.chainId === evmChain);
  must(evm?.chainType === "evm", `chain ${evmChain} of type evm in ${JSON.stringify(list)}`);
  must(list.find((c) => c.chainId === l1)?.bech32Prefix === "init", `${l1} with prefix init`);
});
await check("assets", async () => {
  const byChain = await assets({ chainIds: [evmChain], includeEvmAssets: true });
  const native = byChain?.[evmChain]?.find((a) => a.denom === "evm-native");
  must(native?.decimals === 18 && native.isEvm, `evm-native (18 decimals, is_evm) in ${JSON.stringify(byChain)}`);
});
await check("balances", async () => {
  const res = await balances({ chains: { [evmChain]: { address: account.address, denoms: ["evm-native"] } } });
  const got = res?.chains?.[evmChain]?.denoms?.["evm-native"];
  const want = await pub.getBalance({ address: account.address });
  must(got && !got.error && BigInt(got.amount) === want, `balance ${want} read from the rollup, got ${JSON.stringify(got)}`);
});

// The IBC route, run by executeRoute as most apps run it.
const ibcReq = { amountIn: "1000000000000000", sourceAssetChainId: evmChain, sourceAssetDenom: "evm-native", destAssetChainId: l1, destAssetDenom: ethOnL1 };
const ibcRoute = await check("route (IBC)", async () => {
  const r = await route(ibcReq);
  must(r?.operations?.length === 1 && r.requiredChainAddresses?.length === 2, `one operation over two chains, got ${JSON.stringify(r)}`);
  return r;
});
const userAddresses = [{ chainId: evmChain, address: account.address }, { chainId: l1, address: onInit }];
await check("messages (IBC)", async () => {
  const m = await messages({
    ...ibcReq, amountOut: ibcRoute.amountOut, operations: ibcRoute.operations,
    addressList: userAddresses.map((a) => a.address), slippageTolerancePercent: "1",
  });
  must(m?.txs?.[0]?.evmTx?.chainId === evmChain, `an evm_tx on ${evmChain}, got ${JSON.stringify(m)}`);
});
await check("executeRoute (IBC)", async () => {
  let done, broadcast, tracked;
  const before = await pub.getBalance({ address: account.address });
  await executeRoute({
    route: ibcRoute, userAddresses, slippageTolerancePercent: "1",
    getEvmSigner: async (id) => { must(id === evmChain, `signer asked for ${evmChain}, not ${id}`); return wallet; },
    onTransactionBroadcast: async (tx) => { broadcast = tx; },
    onTransactionTracked: async (tx) => { tracked = tx; },
    onTransactionCompleted: async (tx) => { done = tx; },
    trackTxPollingOptions: { maxRetries: 20, retryInterval: 200, backoffMultiplier: 1 },
  });
  must(broadcast?.txHash && tracked?.explorerLink, `a broadcast tx the service tracked, got ${JSON.stringify({ broadcast, tracked })}`);
  must(done?.status?.state === "STATE_COMPLETED_SUCCESS", `completion reported, got ${JSON.stringify(done)}`);
  const st = await transactionStatus({ txHash: broadcast.txHash, chainId: evmChain });
  must(st?.state === "STATE_COMPLETED_SUCCESS", `STATE_COMPLETED_SUCCESS, got ${JSON.stringify(st)}`);
  const rc = await pub.getTransactionReceipt({ hash: broadcast.txHash });
  must(rc.status === "success" && before - (await pub.getBalance({ address: account.address })) >= BigInt(ibcReq.amountIn),
    "the tx mined on the rollup, paying amount_in");
});

// The OP-hook route: EVM -> IBC -> L1 -> OPinit deposit to a rollup, the deposit run on the
// L1 by the signed hook.
const hookReq = { amountIn: "2000000000000000", sourceAssetChainId: evmChain, sourceAssetDenom: "evm-native", destAssetChainId: moveChain, destAssetDenom: ethOnMove };
const hookRoute = await check("route (OP hook)", async () => {
  const r = await route(hookReq);
  must(r?.requiredOpHook === true && r.operations?.length === 2, `required_op_hook and two operations, got ${JSON.stringify(r)}`);
  return r;
});
await check("executeRoute refuses the OP-hook route (messages() sends no signed_op_hook)", async () => {
  let refused;
  try {
    await executeRoute({ route: hookRoute, userAddresses: [...userAddresses, { chainId: moveChain, address: onInit }], getEvmSigner: async () => wallet });
  } catch (err) {
    refused = err;
  }
  must(refused && String(refused.message).includes("signed_op_hook"), `a refusal naming signed_op_hook, got ${refused?.message ?? "success"}`);
});

async function postJSON(path, body) {
  const res = await fetch(new URL(path, apiUrl.endsWith("/") ? apiUrl : apiUrl + "/"), {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const out = await res.json();
  if (!res.ok) throw Object.assign(new Error(out.message ?? res.statusText), { response: { data: out } });
  return out;
}

// As interwovenkit's useSignOpHook: the hook from /op-hook, signed with eth_secp256k1 on the
// hook chain with the signer's account number and sequence there, sent as a base64 Tx.
const signedOpHook = await check("op-hook, signed as interwovenkit signs it", async () => {
  const { chain_id: hookChain, hook } = await postJSON("op-hook", {
    source_address: onInit, source_asset_chain_id: hookReq.sourceAssetChainId, source_asset_denom: hookReq.sourceAssetDenom,
    dest_address: onInit, dest_asset_chain_id: hookReq.destAssetChainId, dest_asset_denom: hookReq.destAssetDenom,
  });
  must(hookChain === l1 && hook?.length === 1, `one hook message on ${l1}`);
  const res = await fetch(`${hookRest}/cosmos/auth/v1beta1/accounts/${onInit}`);
  const acc = (await res.json()).account;
  must(res.ok && acc?.account_number !== undefined, `the signer's account on ${hookChain}`);
  const aminoMsgs = hook.map(({ msg_type_url, msg }) => {
    must(msg_type_url === "/opinit.ophost.v1.MsgInitiateTokenDeposit", `a deposit hook, got ${msg_type_url}`);
    return { type: "ophost/MsgInitiateTokenDeposit", value: JSON.parse(msg) };
  });
  const fee = { amount: [], gas: "1" };
  const signDoc = makeSignDoc(aminoMsgs, fee, hookChain, "", acc.account_number, acc.sequence);
  const sig65 = await account.signMessage({ message: { raw: serializeSignDoc(signDoc) } });
  const signature = Buffer.from(sig65.slice(2, 2 + 128), "hex"); // [R||S], v dropped
  const messagesProto = aminoMsgs.map(({ value: v }) => ({
    typeUrl: "/opinit.ophost.v1.MsgInitiateTokenDeposit",
    value: MsgInitiateTokenDeposit.encode({
      sender: v.sender, bridgeId: BigInt(v.bridge_id), to: v.to, amount: v.amount,
      data: v.data ? Buffer.from(v.data, "base64") : new Uint8Array(),
    }).finish(),
  }));
  const compressed = Buffer.from(account.publicKey.slice(2), "hex");
  const pubkey = compressPubKey(compressed);
  const tx = Tx.fromPartial({
    body: TxBody.fromPartial({ messages: messagesProto, memo: "" }),
    authInfo: AuthInfo.fromPartial({
      signerInfos: [{
        publicKey: { typeUrl: "/initia.crypto.v1beta1.ethsecp256k1.PubKey", value: PubKey.encode({ key: pubkey }).finish() },
        modeInfo: { single: { mode: SignMode.SIGN_MODE_EIP_191 } },
        sequence: BigInt(acc.sequence),
      }],
      fee: { amount: [], gasLimit: 1n },
    }),
    signatures: [signature],
  });
  return { signer: onInit, hook: Buffer.from(Tx.encode(tx).finish()).toString("base64") };
});

function compressPubKey(uncompressed) {
  // viem gives 0x04 || X || Y; the chain keeps the 33-byte compressed form.
  const x = uncompressed.subarray(1, 33);
  const yOdd = uncompressed[64] & 1;
  return Buffer.concat([Buffer.from([yOdd ? 3 : 2]), x]);
}

// As interwovenkit: msgs posted by the app itself, with signed_op_hook.
const hookTx = await check("msgs with signed_op_hook", async () => {
  must(signedOpHook, "a signed op hook");
  const addressList = hookRoute.requiredChainAddresses.map((id) => (id === evmChain ? account.address : onInit));
  const { txs } = await postJSON("v2/fungible/msgs", {
    address_list: addressList, amount_in: hookRoute.amountIn, amount_out: hookRoute.amountOut,
    source_asset_chain_id: hookRoute.sourceAssetChainId, source_asset_denom: hookRoute.sourceAssetDenom,
    dest_asset_chain_id: hookRoute.destAssetChainId, dest_asset_denom: hookRoute.destAssetDenom,
    slippage_tolerance_percent: "1", operations: hookRouteOpsSnake(), signed_op_hook: signedOpHook,
  });
  must(txs?.[0]?.evm_tx?.chain_id === evmChain, "an evm_tx");
  return txs[0].evm_tx;
});

// The route as the API sent it (the SDK camel-cases responses): operations go back snake_case.
function hookRouteOpsSnake() {
  const snake = (o) => Array.isArray(o) ? o.map(snake) : o && typeof o === "object"
    ? Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/([A-Z])/g, "_$1").toLowerCase(), snake(v)])) : o;
  return snake(hookRoute.operations);
}

const hookHash = await check("evm_tx signed and sent (viem)", async () => {
  must(hookTx, "the evm_tx");
  const hash = await wallet.sendTransaction({ to: hookTx.to, value: BigInt(hookTx.value), data: `0x${hookTx.data}` });
  const rc = await pub.waitForTransactionReceipt({ hash });
  must(rc.status === "success", `the tx to succeed, got ${rc.status}`);
  return hash;
});
await check("trackTransaction", async () => {
  must(hookHash, "a tx hash");
  const t = await trackTransaction({ txHash: hookHash, chainId: evmChain });
  must(t?.txHash, `a tracked tx, got ${JSON.stringify(t)}`);
});
await check("waitForTransaction (OP hook route)", async () => {
  must(hookHash, "a tx hash");
  const st = await waitForTransaction({ txHash: hookHash, chainId: evmChain });
  must(st?.state === "STATE_COMPLETED_SUCCESS", `STATE_COMPLETED_SUCCESS, got ${JSON.stringify(st)}`);
  const hops = st.transferSequence ?? [];
  must(hops.some((h) => h.opInitTransfer), `an op_init_transfer hop, got ${JSON.stringify(hops)}`);
});
