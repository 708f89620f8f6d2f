// CosmJS 0.39 against a fresh Wasm rollup, as a CosmWasm team drives a chain: the first
// fee-paying tx of the chain under fee "auto", then the project's contract uploaded,
// instantiated with the official message, scored, finalized and queried; instantiate2 at
// its predicted address; migrate; admin changes; an authz grant that lets a hot key write
// scores for the operator; a fee grant that pays the hot key's score write; searches that
// find nothing. CosmJS signs secp256k1 (coin type 118): the mnemonic's coin type 118
// account is the operator.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { makeCosmoshubPath } from "@cosmjs/amino";
import { CosmWasmClient, SigningCosmWasmClient, instantiate2Address } from "@cosmjs/cosmwasm-stargate";
import { fromUtf8, toBech32, toUtf8 } from "@cosmjs/encoding";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { QueryClient, createProtobufRpcClient } from "@cosmjs/stargate";
import { connectComet } from "@cosmjs/tendermint-rpc";
import { GenericAuthorization } from "cosmjs-types/cosmos/authz/v1beta1/authz";
import { QueryClientImpl as AuthzQuery } from "cosmjs-types/cosmos/authz/v1beta1/query";
import { BasicAllowance } from "cosmjs-types/cosmos/feegrant/v1beta1/feegrant";
import { QueryClientImpl as FeegrantQuery } from "cosmjs-types/cosmos/feegrant/v1beta1/query";
import { MsgExecuteContract } from "cosmjs-types/cosmwasm/wasm/v1/tx";
import { check, env, must, recordGas } from "./report.mjs";

// @cosmjs/cosmwasm-stargate 0.39 is a shim over @cosmjs/cosmwasm 0.38 with its own nested
// stargate: its clients take a GasPrice from that copy (FACTS: the nested-stargate trap).
const nested = createRequire(createRequire(import.meta.url).resolve("@cosmjs/cosmwasm"))("@cosmjs/stargate");

const rpc = env("RPC_URL");
const chainId = env("CHAIN_ID");
const denom = env("FEE_DENOM");
const prefix = env("BECH32_PREFIX");
const stage = Number(env("STAGE"));
const gasPrice = nested.GasPrice.fromString(env("GAS_PRICE"));
const code = new Uint8Array(readFileSync(env("WASM_FILE")));
const checksum = createHash("sha256").update(code).digest("hex");

const operatorWallet = await DirectSecp256k1HdWallet.fromMnemonic(env("MNEMONIC"), { prefix });
const [{ address: operator }] = await operatorWallet.getAccounts();
// The hot key: the same mnemonic's next coin type 118 account, fresh (never funded at genesis).
const hotWallet = await DirectSecp256k1HdWallet.fromMnemonic(env("MNEMONIC"), { prefix, hdPaths: [makeCosmoshubPath(1)] });
const [{ address: hot }] = await hotWallet.getAccounts();
// The fee collector module account (x/auth): sha256("fee_collector")[:20].
const feeCollector = toBech32(prefix, createHash("sha256").update("fee_collector").digest().subarray(0, 20));

let client, hotClient, reader;
// gas and hotGas print each tx's simulated, wanted and used gas (recordGas).
let gas, hotGas;
await check("SigningCosmWasmClient.connectWithSigner", async () => {
  client = await SigningCosmWasmClient.connectWithSigner(rpc, operatorWallet, { gasPrice });
  gas = recordGas(client);
  must((await client.getChainId()) === chainId, `chain id ${chainId}`);
});
await check("CosmWasmClient.connect (Comet38)", async () => {
  reader = await CosmWasmClient.connect(rpc);
  must((await reader.getHeight()) > 0, "a height");
});
await check("mnemonic coin type 118 account is the funded one", async () => {
  must(operator === env("FUNDED_ADDRESS"), `${env("FUNDED_ADDRESS")}, got ${operator}`);
});
// Every tx goes with fee "auto" (CosmJS's simulation x 1.4). A simulation leaves out what
// only a delivered tx pays (the fee's deduction, wasmd's tx counter); a minitia adds a fixed
// allowance for it to every simulation (miniwasm: 50,000 gas), so "auto" covers even the
// small admin, authz and feegrant messages.
const balance = async (a) => BigInt((await client.getBalance(a, denom)).amount);

// The chain's first fee-paying tx, its gas from CosmJS's own simulation ("auto"): the fee
// collector holds nothing before it and exactly the fee after it.
await check("first fee-paying tx of a fresh chain under fee auto (sendTokens to the hot key)", async () => {
  must((await balance(feeCollector)) === 0n, "an empty fee collector before the chain's first fee");
  const res = gas("bank MsgSend", await client.sendTokens(operator, hot, [{ denom, amount: "2000000" }], "auto", "cosmjs first fee"));
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
  const tx = await client.getTx(res.transactionHash);
  must(tx && tx.code === 0, "the tx by hash");
  const collected = await balance(feeCollector);
  must(collected > 0n, `the fee collected, got ${collected}`);
  must((await balance(hot)) === 2000000n, "the hot key funded");
});

let codeId;
await check("upload (MsgStoreCode, fee auto)", async () => {
  const res = gas("MsgStoreCode", await client.upload(operator, code, "auto", "cosmjs upload"));
  must(res.checksum === checksum, `checksum ${checksum}, got ${res.checksum}`);
  codeId = res.codeId;
  must(codeId > 0, "a code id");
});
await check("getCodeDetails", async () => {
  const d = await client.getCodeDetails(codeId);
  must(d.creator === operator && d.checksum === checksum, `creator and checksum: ${d.creator} ${d.checksum}`);
  must(d.data.length === code.length, "the code's bytes");
});
await check("getCodes", async () => {
  const codes = await client.getCodes();
  must(codes.some((c) => c.id === codeId), `code ${codeId} listed`);
});

let contract;
await check("instantiate (official message, admin set)", async () => {
  const res = gas("MsgInstantiateContract", await client.instantiate(operator, codeId, { allow_list: [operator], init_stage: stage }, "cosmjs vip_score", "auto", { admin: operator }));
  contract = res.contractAddress;
  must(contract.startsWith(prefix), `a contract address, got ${contract}`);
});
await check("getContract", async () => {
  const c = await client.getContract(contract);
  must(c.codeId === codeId && c.admin === operator && c.creator === operator && c.label === "cosmjs vip_score", JSON.stringify(c));
});
await check("getContracts", async () => must((await client.getContracts(codeId)).includes(contract), "the contract by code"));

const scored = [[operator, 10], [hot, 32]];
await check("execute update_scores", async () => {
  const res = gas("MsgExecuteContract update_scores", await client.execute(operator, contract, { update_scores: { stage, scores: scored } }, "auto"));
  must(res.events.some((e) => e.type === "execute" && e.attributes.some((a) => a.value === contract)), `the execute event: ${JSON.stringify(res.events.map((e) => e.type))}`);
});
await check("queryContractSmart get_score", async () => {
  const res = await client.queryContractSmart(contract, { get_score: { addr: hot, stage } });
  must(Number(res.score) === 32, `score 32, got ${JSON.stringify(res)}`);
});
await check("queryContractSmart get_scores", async () => {
  const res = await client.queryContractSmart(contract, { get_scores: { stage, limit: 10 } });
  must(JSON.stringify(res).includes(hot) && JSON.stringify(res).includes(operator), JSON.stringify(res));
});
await check("queryContractSmart get_stage_info", async () => {
  const res = await client.queryContractSmart(contract, { get_stage_info: { stage } });
  must(Number(res.total_score) === 42 && res.is_finalized === false, JSON.stringify(res));
});
// Raw reads by the storage keys cw-storage-plus gives the official contract: the Item
// "init_stage", and the Map "scores" (u16 length-prefixed namespace, the stage big-endian,
// the address).
const rawKey = (ns, ...parts) => {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(ns.length);
  return new Uint8Array(Buffer.concat([len, Buffer.from(ns), ...parts.map((p) => Buffer.from(p))]));
};
const stageBE = (n) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
await check("queryContractRaw init_stage", async () => {
  const raw = await client.queryContractRaw(contract, toUtf8("init_stage"));
  must(raw && Number(JSON.parse(fromUtf8(raw))) === stage, `init_stage ${stage}, got ${raw && fromUtf8(raw)}`);
});
await check("queryContractRaw a score (Map key)", async () => {
  const raw = await client.queryContractRaw(contract, rawKey("scores", stageBE(stage), toUtf8(hot)));
  must(raw && Number(JSON.parse(fromUtf8(raw))) === 32, `score 32, got ${raw && fromUtf8(raw)}`);
});
await check("queryContractRaw of a missing key is empty", async () => {
  const raw = await client.queryContractRaw(contract, rawKey("scores", stageBE(stage + 9), toUtf8(hot)));
  must(raw === null || raw.length === 0, `nothing, got ${raw && fromUtf8(raw)}`);
});
await check("queryContractSmart refused (contract error, clean message)", async () => {
  let err;
  try {
    await client.queryContractSmart(contract, { get_stage_info: { stage: stage + 7 } });
  } catch (e) {
    err = e;
  }
  must(err && !/panic/.test(err.message), `an error for a missing stage, got ${err?.message}`);
});
await check("execute finalize_stage", async () => {
  gas("MsgExecuteContract finalize_stage", await client.execute(operator, contract, { finalize_stage: { stage } }, "auto"));
  const done = await client.queryContractSmart(contract, { get_stage_info: { stage } });
  must(done.is_finalized === true, `stage ${stage} finalized: ${JSON.stringify(done)}`);
  const next = await client.queryContractSmart(contract, { get_stage_info: { stage: stage + 1 } });
  must(next.is_finalized === false, `stage ${stage + 1} open: ${JSON.stringify(next)}`);
});
await check("execute on a finalized stage is refused", async () => {
  let err;
  try {
    await client.execute(operator, contract, { update_score: { addr: hot, stage, amount: 1 } }, "auto");
  } catch (e) {
    err = e;
  }
  must(err, "a refusal");
  must(/finaliz/i.test(err.message), `the reason, got ${err.message}`);
});

let contract2;
await check("instantiate2 at the predicted address", async () => {
  const salt = toUtf8("vipharness-cosmjs");
  const predicted = instantiate2Address(Buffer.from(checksum, "hex"), operator, salt, prefix);
  const res = gas("MsgInstantiateContract2", await client.instantiate2(operator, codeId, salt, { allow_list: [operator], init_stage: stage + 1 }, "cosmjs vip_score 2", "auto", { admin: operator }));
  must(res.contractAddress === predicted, `address ${predicted}, got ${res.contractAddress}`);
  contract2 = res.contractAddress;
  const info = await client.queryContractSmart(contract2, { get_stage_info: { stage: stage + 1 } });
  must(info.is_finalized === false, JSON.stringify(info));
});
// The same bytes stored again are a code of their own: the contract migrates to it.
let codeId2;
await check("upload the same code again (a new code id, the same checksum)", async () => {
  const res = await client.upload(operator, code, "auto", "cosmjs upload again");
  codeId2 = res.codeId;
  must(codeId2 > codeId && res.checksum === checksum, `a code after ${codeId} with checksum ${checksum}, got ${codeId2} ${res.checksum}`);
});
await check("migrate to the new code (admin, the contract's migrate entry)", async () => {
  gas("MsgMigrateContract", await client.migrate(operator, contract, codeId2, {}, "auto"));
  must((await client.getContract(contract)).codeId === codeId2, `code ${codeId2} after migrate`);
  const hist = await client.getContractCodeHistory(contract);
  must(hist.length === 2 && hist[0].codeId === codeId && hist[1].operation === "Migrate" && hist[1].codeId === codeId2, JSON.stringify(hist));
  const after = await client.queryContractSmart(contract, { get_score: { addr: hot, stage } });
  must(Number(after.score) === 32, `state kept across migrate, got ${JSON.stringify(after)}`);
});
await check("migrate with a message the contract refuses", async () => {
  let err;
  try {
    await client.migrate(operator, contract, codeId2, { unexpected: 1 }, "auto");
  } catch (e) {
    err = e;
  }
  must(err && /migrate/i.test(err.message), `the contract's refusal, got ${err?.message}`);
});
await check("updateAdmin to the hot key (fee auto)", async () => {
  gas("MsgUpdateAdmin", await client.updateAdmin(operator, contract2, hot, "auto"));
  must((await client.getContract(contract2)).admin === hot, "the hot key as admin");
});
await check("migrate by a former admin is refused", async () => {
  let err;
  try {
    await client.migrate(operator, contract2, codeId, {}, "auto");
  } catch (e) {
    err = e;
  }
  must(err && /unauthorized/i.test(err.message), `unauthorized, got ${err?.message}`);
});
await check("clearAdmin (by the hot key, fee auto)", async () => {
  hotClient = await SigningCosmWasmClient.connectWithSigner(rpc, hotWallet, { gasPrice });
  hotGas = recordGas(hotClient);
  hotGas("MsgClearAdmin", await hotClient.clearAdmin(hot, contract2, "auto"));
  must(!(await client.getContract(contract2)).admin, "no admin");
});

// authz: the operator lets the hot key execute contracts for it; the hot key, not on the
// allow list, writes a score as the operator with MsgExec.
const query = QueryClient.withExtensions(await connectComet(rpc));
const protoRPC = createProtobufRpcClient(query);
const execAsOperator = (scores) => ({
  typeUrl: "/cosmos.authz.v1beta1.MsgExec",
  value: {
    grantee: hot,
    msgs: [{
      typeUrl: "/cosmwasm.wasm.v1.MsgExecuteContract",
      value: MsgExecuteContract.encode(MsgExecuteContract.fromPartial({
        sender: operator, contract: contract2, msg: toUtf8(JSON.stringify({ update_scores: { stage: stage + 1, scores } })), funds: [],
      })).finish(),
    }],
  },
});
const inAnHour = { seconds: BigInt(Math.floor(Date.now() / 1000) + 3600), nanos: 0 };
await check("hot key's own score write is refused (not on the allow list)", async () => {
  let err;
  try {
    await hotClient.execute(hot, contract2, { update_score: { addr: hot, stage: stage + 1, amount: 1 } }, "auto");
  } catch (e) {
    err = e;
  }
  must(err && /not allowed/i.test(err.message), `not allowed, got ${err?.message}`);
});
await check("authz MsgGrant (GenericAuthorization MsgExecuteContract)", async () => {
  const res = await client.signAndBroadcast(operator, [{
    typeUrl: "/cosmos.authz.v1beta1.MsgGrant",
    value: {
      granter: operator, grantee: hot,
      grant: {
        authorization: {
          typeUrl: "/cosmos.authz.v1beta1.GenericAuthorization",
          value: GenericAuthorization.encode({ msg: "/cosmwasm.wasm.v1.MsgExecuteContract" }).finish(),
        },
        expiration: inAnHour,
      },
    },
  }], "auto");
  gas("authz MsgGrant", res);
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
});
await check("authz Grants query (abci_query)", async () => {
  const res = await new AuthzQuery(protoRPC).Grants({ granter: operator, grantee: hot, msgTypeUrl: "" });
  must(res.grants.length === 1 && res.grants[0].authorization.typeUrl === "/cosmos.authz.v1beta1.GenericAuthorization", JSON.stringify(res.grants.length));
});
await check("authz MsgExec: the hot key writes a score as the operator", async () => {
  const res = hotGas("authz MsgExec", await hotClient.signAndBroadcast(hot, [execAsOperator([[hot, 5]])], "auto"));
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
  const got = await client.queryContractSmart(contract2, { get_score: { addr: hot, stage: stage + 1 } });
  must(Number(got.score) === 5, `score 5, got ${JSON.stringify(got)}`);
});

// feegrant: the operator pays the hot key's fees; the hot key's balance does not move.
await check("feegrant MsgGrantAllowance (BasicAllowance)", async () => {
  const res = await client.signAndBroadcast(operator, [{
    typeUrl: "/cosmos.feegrant.v1beta1.MsgGrantAllowance",
    value: {
      granter: operator, grantee: hot,
      allowance: {
        typeUrl: "/cosmos.feegrant.v1beta1.BasicAllowance",
        value: BasicAllowance.encode({ spendLimit: [{ denom, amount: "5000000" }], expiration: inAnHour }).finish(),
      },
    },
  }], "auto");
  gas("feegrant MsgGrantAllowance", res);
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
});
await check("feegrant Allowance query (abci_query)", async () => {
  const res = await new FeegrantQuery(protoRPC).Allowance({ granter: operator, grantee: hot });
  must(res.allowance?.granter === operator && res.allowance.allowance.typeUrl === "/cosmos.feegrant.v1beta1.BasicAllowance", JSON.stringify(res.allowance?.granter));
});
await check("score write whose fee the granter pays (MsgExec, fee.granter)", async () => {
  const msgs = [execAsOperator([[hot, 9]])];
  const fee = nested.calculateFee(Math.ceil((await hotClient.simulate(hot, msgs, "")) * 1.4), gasPrice);
  const [hotBefore, opBefore] = [await balance(hot), await balance(operator)];
  const res = await hotClient.signAndBroadcast(hot, msgs, { ...fee, granter: operator });
  must(res.code === 0, `code 0, got ${res.code}: ${res.rawLog}`);
  must((await balance(hot)) === hotBefore, `the hot key's balance unchanged (${hotBefore})`);
  must(opBefore - (await balance(operator)) === BigInt(fee.amount[0].amount), `the granter paid ${fee.amount[0].amount}`);
  const got = await client.queryContractSmart(contract2, { get_score: { addr: hot, stage: stage + 1 } });
  must(Number(got.score) === 9, `score 9, got ${JSON.stringify(got)}`);
});

// Searches that find nothing answer [] and null; one that finds something finds it.
await check("searchTx with no hits is []", async () => {
  const res = await reader.searchTx(`message.sender='${prefix}1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqnrql8a'`);
  must(Array.isArray(res) && res.length === 0, `[], got ${JSON.stringify(res)}`);
});
await check("getTx of an unknown hash is null", async () => {
  must((await reader.getTx("00".repeat(32))) === null, "null");
});
await check("searchTx by sender finds the operator's txs", async () => {
  const res = await reader.searchTx([{ key: "message.sender", value: operator }]);
  must(res.length >= 10 && res.every((t) => t.code === 0 || t.code > 0), `the operator's txs, got ${res.length}`);
});
await check("getBlock", async () => {
  const b = await reader.getBlock();
  must(b.header.chainId === chainId && b.header.height > 0, "the latest block");
});
await check("getAccount and getSequence", async () => {
  const acc = await reader.getAccount(operator);
  must(acc && acc.pubkey && acc.sequence >= 10, `the operator's account, got ${JSON.stringify(acc)}`);
  const seq = await reader.getSequence(hot);
  must(seq.sequence === 3, `the hot key's sequence 3, got ${seq.sequence}`);
});
client?.disconnect();
hotClient?.disconnect();
reader?.disconnect();
