// Initia.js against a local Move rollup (minimove) and the L1 stand-in, as an application
// would: the shared Cosmos calls, then vip_score (deployed and scored by the Go spec) read
// through every Move view face, scored again with a signed MsgExecute, and the L1's vip
// ModuleStore read as the VIP guide does.
import { AccAddress, MsgExecute, RESTClient, bcs } from "@initia/initia.js";
import { cosmosChecks, defaultKey, landed, rollup } from "./initia_common.mjs";
import { check, env, must } from "./report.mjs";

const r = rollup();
const moduleAddr = env("VIP_SCORE"); // the vip_score module's account (0x-hex)
const stage = env("STAGE");
const scored = env("SCORED"); // an account the Go spec scored at STAGE
const score = env("SCORE");

const key = defaultKey(r.mnemonic);
// minimove's bank is Move's fungible_asset: an overdraft is its withdraw's abort,
// EINSUFFICIENT_BALANCE in the invalid-argument category (0x10004 = 65540).
const { rest, wallet, addr, latest } = await cosmosChecks(r, key, /VM aborted: location=0{63}1::fungible_asset, code=65540/);

const scoreArgs = (a) => [bcs.address().serialize(a).toBase64(), bcs.u64().serialize(stage).toBase64()];

await check("move.module (ABI)", async () => {
  const m = await rest.move.module(moduleAddr, "vip_score");
  const abi = JSON.parse(m.abi);
  must(abi.name === "vip_score", `module vip_score, got ${abi.name}`);
  must(abi.exposed_functions.some((f) => f.name === "get_score" && f.is_view), "the get_score view in the ABI");
});
await check("move.modules", async () => {
  const [mods] = await rest.move.modules(moduleAddr);
  must(mods.some((m) => m.module_name === "vip_score"), `vip_score among ${mods.map((m) => m.module_name)}`);
});
await check("move.resources", async () => {
  const [res] = await rest.move.resources(moduleAddr);
  must(res.some((x) => x.type.endsWith("::vip_score::ModuleStore")), `the ModuleStore among ${res.map((x) => x.type)}`);
});
await check("move.resource ModuleStore", async () => {
  const res = await rest.move.resource(moduleAddr, `${moduleAddr}::vip_score::ModuleStore`);
  must(res.type.endsWith("::vip_score::ModuleStore") && res.data, "the ModuleStore");
});
await check("move.viewFunction get_score", async () => {
  const got = await rest.move.viewFunction(moduleAddr, "vip_score", "get_score", [], scoreArgs(scored));
  must(String(got) === score, `score ${score}, got ${JSON.stringify(got)}`);
});
await check("move.view (BCS) get_total_score", async () => {
  const res = await rest.move.view(moduleAddr, "vip_score", "get_total_score", [], [bcs.u64().serialize(stage).toBase64()]);
  must(BigInt(JSON.parse(res.data)) >= BigInt(score), `a total of at least ${score}, got ${res.data}`);
});
await check("move.viewJSON get_score", async () => {
  const res = await rest.move.viewJSON(moduleAddr, "vip_score", "get_score", [], [JSON.stringify(AccAddress.toHex(scored)), JSON.stringify(stage)]);
  must(JSON.parse(res.data) === score, `score ${score}, got ${res.data}`);
});
await check("move.viewBatch", async () => {
  const res = await rest.move.viewBatch([
    { address: moduleAddr, module_name: "vip_score", function_name: "get_score", type_args: [], args: scoreArgs(scored) },
    { address: moduleAddr, module_name: "vip_score", function_name: "get_total_score", type_args: [], args: [bcs.u64().serialize(stage).toBase64()] },
  ]);
  must(res.length === 2 && JSON.parse(res[0].data) === score, `two answers, the first ${score}: ${JSON.stringify(res)}`);
});
await check("move.viewBatchJSON", async () => {
  const res = await rest.move.viewBatchJSON([
    { address: moduleAddr, module_name: "vip_score", function_name: "get_score", type_args: [], args: [JSON.stringify(AccAddress.toHex(scored)), JSON.stringify(stage)] },
  ]);
  must(res.length === 1 && JSON.parse(res[0].data) === score, `score ${score}: ${JSON.stringify(res)}`);
});

// The operator (this mnemonic's default key deployed vip_score) scores itself with a signed
// MsgExecute, then reads it back.
let executed;
await check("MsgExecute update_score_script", async () => {
  const msg = new MsgExecute(addr, moduleAddr, "vip_score", "update_score_script", [], [
    bcs.u64().serialize(stage).toBase64(),
    bcs.vector(bcs.address()).serialize([addr]).toBase64(),
    bcs.vector(bcs.u64()).serialize([777]).toBase64(),
  ]);
  const res = await landed(rest, await wallet.createAndSignTx({ msgs: [msg] }));
  executed = Number(res.height);
});
await check("move.viewFunction reads the executed score", async () => {
  const got = await rest.move.viewFunction(moduleAddr, "vip_score", "get_score", [], scoreArgs(addr));
  must(String(got) === "777", `score 777, got ${JSON.stringify(got)}`);
});
await check("tx.searchEvents vip_score", async () => {
  must(executed, "the MsgExecute to have landed");
  const events = await rest.tx.searchEvents(moduleAddr, "vip_score", Math.max(1, executed - 5), executed);
  must(events.length > 0, "the UpdateScoreEvent of the MsgExecute");
});

// The L1 stand-in, as the VIP guide reads it: the vip module's ModuleStore and stage view.
const l1 = new RESTClient(env("L1_REST_URL"), { chainId: env("L1_CHAIN_ID") });
const vip = env("VIP_MODULE_ADDRESS");
await check("L1 move.resource vip ModuleStore", async () => {
  const res = await l1.move.resource(vip, `${vip}::vip::ModuleStore`);
  must(String(res.data.stage) === env("L1_STAGE"), `stage ${env("L1_STAGE")}, got ${JSON.stringify(res.data.stage)}`);
});
await check("L1 move.viewFunction get_stage", async () => {
  const got = await l1.move.viewFunction(vip, "vip", "get_stage", [], []);
  must(String(got) === env("L1_STAGE"), `stage ${env("L1_STAGE")}, got ${JSON.stringify(got)}`);
});
await check("blocks moved on", async () => {
  const b = await rest.tendermint.blockInfo();
  must(Number(b.block.header.height) > (latest ?? 0), "a later latest block");
});
