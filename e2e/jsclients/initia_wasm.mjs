// Initia.js against a local Wasm rollup (miniwasm), as an application would: the shared
// Cosmos calls with MnemonicKey()'s defaults (coin type 60, eth_secp256k1, which miniwasm
// funds), the scoring contract the Go spec deployed and scored (signed with the mnemonic's
// coin type 118 key, its deployer), and a second copy stored, instantiated, executed and
// queried from here.
import { readFileSync } from "node:fs";
import { MnemonicKey, MsgExecuteContract, MsgInstantiateContract, MsgStoreCode, RESTClient, SignMode } from "@initia/initia.js";
import { cosmosChecks, defaultKey, landed, rollup } from "./initia_common.mjs";
import { check, env, must } from "./report.mjs";

const r = rollup();
const contract = env("CONTRACT");
const stage = Number(env("STAGE"));
const scored = env("SCORED");
const score = env("SCORE");

const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64");
// smart queries go in the URL path: base64 with "/" would split it, so a query that encodes
// to one is padded with a space (JSON ignores it), as apps do.
const q = (v) => {
  let s = JSON.stringify(v);
  while (Buffer.from(s).toString("base64").includes("/")) s += " ";
  return Buffer.from(s).toString("base64");
};

const key60 = defaultKey(r.mnemonic);
await check("MnemonicKey() default (coin type 60) is the funded account", async () => {
  must(key60.accAddress === env("COIN_TYPE60_ADDRESS"), `${env("COIN_TYPE60_ADDRESS")}, got ${key60.accAddress}`);
});
const { rest, wallet, addr } = await cosmosChecks(r, key60, /is smaller than \d+\w+: insufficient funds/);

// The contract's deployer: the mnemonic's coin type 118 secp256k1 key (wasmd's default).
const key118 = new MnemonicKey({ mnemonic: r.mnemonic, coinType: 118, eth: false });
const deployer = new RESTClient(r.rest, { chainId: r.chainId }).wallet(key118);
await check("MnemonicKey coin type 118 is the deployer", async () => {
  must(key118.accAddress === env("FUNDED_ADDRESS"), `${env("FUNDED_ADDRESS")}, got ${key118.accAddress}`);
});

let codeId;
await check("wasm.contractInfo", async () => {
  const info = await rest.wasm.contractInfo(contract);
  must(info.creator === key118.accAddress, `creator ${key118.accAddress}, got ${info.creator}`);
  codeId = Number(info.code_id);
  must(codeId > 0, "a code id");
});
await check("wasm.contractHistory", async () => {
  const [entries] = await rest.wasm.contractHistory(contract);
  must(entries.length === 1 && entries[0].code_id === codeId, `one entry for code ${codeId}: ${JSON.stringify(entries)}`);
  // The gateway writes the msg as the contract's JSON (wasmd's RawContractMessage), not base64.
  must(entries[0].msg?.init_stage === stage, `the instantiate msg, got ${JSON.stringify(entries[0].msg)}`);
});
await check("wasm.codeInfo", async () => {
  const info = await rest.wasm.codeInfo(codeId);
  must(info.code_info.creator === key118.accAddress && info.data, "the code's creator and bytes");
});
await check("wasm.contractsByCode", async () => {
  const [addrs] = await rest.wasm.contractsByCode(codeId);
  must(addrs.includes(contract), `${contract} among ${addrs}`);
});
await check("wasm.allContractState", async () => {
  const [models] = await rest.wasm.allContractState(contract);
  must(models.length > 0, "the contract's state");
});
await check("wasm.smartContractState get_score", async () => {
  const res = await rest.wasm.smartContractState(contract, q({ get_score: { addr: scored, stage } }));
  must(String(res.score) === score, `score ${score}, got ${JSON.stringify(res)}`);
});
await check("wasm.smartContractState get_stage_info", async () => {
  const res = await rest.wasm.smartContractState(contract, q({ get_stage_info: { stage } }));
  must(res.stage === stage && res.is_finalized === false, `stage ${stage} open: ${JSON.stringify(res)}`);
});
await check("MsgExecuteContract update_scores (coin type 118, DIRECT)", async () => {
  const msg = new MsgExecuteContract(key118.accAddress, contract, b64({ update_scores: { stage, scores: [[addr, 777]] } }));
  await landed(rest, await deployer.createAndSignTx({ msgs: [msg] }));
});
await check("wasm.smartContractState reads the executed score", async () => {
  const res = await rest.wasm.smartContractState(contract, q({ get_score: { addr, stage } }));
  must(res.score === 777, `score 777, got ${JSON.stringify(res)}`);
});

// A second copy, from the coin type 60 account, signed as Initia's wallets sign (EIP-191).
let ownCode, own;
await check("MsgStoreCode", async () => {
  const code = readFileSync(env("WASM_FILE")).toString("base64");
  await landed(rest, await wallet.createAndSignTx({ msgs: [new MsgStoreCode(addr, code)], signMode: SignMode.SIGN_MODE_EIP_191 }));
});
await check("wasm.codeInfos", async () => {
  const [infos] = await rest.wasm.codeInfos();
  ownCode = infos.filter((i) => i.creator === addr).map((i) => Number(i.code_id)).sort((a, b) => b - a)[0];
  must(ownCode > codeId, `a new code id after ${codeId}, got ${ownCode}`);
});
await check("MsgInstantiateContract", async () => {
  const msg = new MsgInstantiateContract(addr, addr, ownCode, "jsclients", b64({ allow_list: [addr], init_stage: stage }));
  await landed(rest, await wallet.createAndSignTx({ msgs: [msg], signMode: SignMode.SIGN_MODE_EIP_191 }));
});
await check("wasm.contractsByCreator", async () => {
  const [addrs] = await rest.wasm.contractsByCreator(addr);
  must(addrs.length === 1, `one contract by ${addr}, got ${addrs}`);
  own = addrs[0];
});
await check("MsgExecuteContract on the new contract (coin type 60, EIP-191)", async () => {
  const msg = new MsgExecuteContract(addr, own, b64({ update_score: { addr: scored, stage, amount: 5 } }));
  await landed(rest, await wallet.createAndSignTx({ msgs: [msg], signMode: SignMode.SIGN_MODE_EIP_191 }));
});
await check("wasm.smartContractState on the new contract", async () => {
  const res = await rest.wasm.smartContractState(own, q({ get_stage_info: { stage } }));
  must(res.total_score === 5, `total 5, got ${JSON.stringify(res)}`);
});
