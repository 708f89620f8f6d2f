// Initia.js over the module APIs of a Cosmos rollup (Move or Wasm) that the project's other
// scripts do not call: auth, bank, tendermint validator sets, upgrade, authz and feegrant
// (grants made here with Initia.js's own messages), and the VM's own (wasm pinned codes and
// params; move modules, resources, tables, params and the denom <-> metadata mapping), and
// opchild's validators and bridge as a minitia answers them.
import {
  AuthorizationGrant, BasicAllowance, GenericAuthorization, MnemonicKey, MsgGrantAllowance, MsgGrantAuthorization, RESTClient, isTxError,
} from "@initia/initia.js";
import { createHash } from "node:crypto";
import { check, env, must } from "./report.mjs";

const vm = env("VM");
const denom = env("FEE_DENOM");
const chainId = env("CHAIN_ID");
const rest = new RESTClient(env("REST_URL"), { chainId });
const granter = new MnemonicKey({ mnemonic: env("MNEMONIC") });
const grantee = new MnemonicKey({ mnemonic: env("MNEMONIC2") });
const wallet = rest.wallet(granter);
const addr = granter.accAddress;

await check("auth.parameters", async () => {
  const p = await rest.auth.parameters();
  must(p.max_memo_characters > 0 && p.tx_sig_limit > 0, JSON.stringify(p));
});
await check("auth.moduleAccount fee_collector", async () => {
  const m = await rest.auth.moduleAccount("fee_collector");
  must(m.name === "fee_collector" || m.base_account?.address || m.getAccountNumber() >= 0, JSON.stringify(m));
});
await check("bank.total", async () => {
  const [coins] = await rest.bank.total();
  must(BigInt(coins.get(denom)?.amount ?? 0) > 0n, `a ${denom} supply`);
});
await check("bank.spendableBalances", async () => {
  const [coins] = await rest.bank.spendableBalances(addr);
  must(BigInt(coins.get(denom)?.amount ?? 0) > 0n, `a spendable ${denom} balance`);
});
await check("bank.parameters", async () => must((await rest.bank.parameters()).default_send_enabled === true, "send enabled"));
await check("tendermint.validatorSet latest", async () => {
  const [vals] = await rest.tendermint.validatorSet();
  must(vals.length === 1 && Number(vals[0].voting_power) > 0, `one validator: ${JSON.stringify(vals)}`);
});
await check("tendermint.validatorSet at height 1", async () => {
  const [vals] = await rest.tendermint.validatorSet(1);
  must(vals.length === 1, `one validator: ${JSON.stringify(vals)}`);
});
await check("upgrade.currentPlan (none)", async () => must((await rest.upgrade.currentPlan()) == null, "no plan"));
await check("upgrade.appliedPlan (none: 0)", async () => must(Number(await rest.upgrade.appliedPlan("v2")) === 0, "height 0"));
await check("upgrade.moduleVersions", async () => {
  const mv = await rest.upgrade.moduleVersions();
  const names = mv.map((m) => m.name);
  for (const n of ["auth", "bank", "authz", "feegrant", "upgrade", vm]) must(names.includes(n), `${n} among ${names}`);
});

// authz and feegrant, granted with Initia.js's messages.
const inAnHour = new Date(Date.now() + 3600_000);
const execMsg = vm === "move" ? "/initia.move.v1.MsgExecute" : "/cosmwasm.wasm.v1.MsgExecuteContract";
await check("MsgGrantAuthorization (GenericAuthorization)", async () => {
  const msg = new MsgGrantAuthorization(addr, grantee.accAddress, new AuthorizationGrant(new GenericAuthorization(execMsg), inAnHour));
  const res = await rest.tx.broadcast(await wallet.createAndSignTx({ msgs: [msg] }));
  must(!isTxError(res), `included: ${res.raw_log}`);
});
await check("authz.grants", async () => {
  const [grants] = await rest.authz.grants(addr, grantee.accAddress);
  must(grants.length === 1 && grants[0].authorization.msg === execMsg, JSON.stringify(grants));
});
await check("authz.granter", async () => must((await rest.authz.granter(addr))[0].length === 1, "one grant by the granter"));
await check("authz.grantee", async () => must((await rest.authz.grantee(grantee.accAddress))[0].length === 1, "one grant to the grantee"));
await check("MsgGrantAllowance (BasicAllowance)", async () => {
  const msg = new MsgGrantAllowance(addr, grantee.accAddress, new BasicAllowance(`1000000${denom}`, inAnHour));
  const res = await rest.tx.broadcast(await wallet.createAndSignTx({ msgs: [msg] }));
  must(!isTxError(res), `included: ${res.raw_log}`);
});
await check("feegrant.allowance", async () => {
  const a = await rest.feeGrant.allowance(addr, grantee.accAddress);
  must(a.spend_limit?.get(denom)?.amount === "1000000", JSON.stringify(a));
});
await check("feegrant.allowances", async () => {
  const res = await rest.feeGrant.allowances(grantee.accAddress);
  must(res.allowances.length === 1 && res.allowances[0].granter === addr, JSON.stringify(res));
});
await check("feegrant.allowancesByGranter", async () => {
  const res = await rest.feeGrant.allowancesByGranter(addr);
  must(res.allowances.length === 1 && res.allowances[0].grantee === grantee.accAddress, JSON.stringify(res));
});

if (vm === "wasm") {
  await check("wasm.pinnedCodes", async () => must(Array.isArray((await rest.wasm.pinnedCodes())[0]), "a list"));
  await check("wasm.parameters", async () => {
    const p = await rest.wasm.parameters();
    must(p.code_upload_access && p.instantiate_default_permission, JSON.stringify(p));
  });
} else {
  // The framework at 0x1 (the project's own, minimal); vip_score's modules, resources and
  // views are read in initia_move.mjs.
  await check("move.modules 0x1", async () => {
    const [mods] = await rest.move.modules("0x1");
    must(mods.some((m) => m.module_name === "code"), `code among ${mods.map((m) => m.module_name)}`);
  });
  await check("move.module 0x1::code (ABI)", async () => {
    const m = await rest.move.module("0x1", "code");
    must(JSON.parse(m.abi).name === "code", "the code module's ABI");
  });
  await check("move.resources 0x1", async () => must((await rest.move.resources("0x1"))[0].length > 0, "0x1's resources"));
  await check("move.parameters", async () => {
    const p = await rest.move.parameters();
    // Scripts run on both (x/move's default); minimove keeps its base denom default.
    must(typeof p.base_denom === "string" && p.script_enabled === true, JSON.stringify(p));
    if (process.env.ENGINE !== "minitia") must(p.base_denom === denom, JSON.stringify(p));
  });
  // A bank denom's metadata is the object named by the denom under 0x1: SHA3-256 of 0x1's
  // 32 bytes, the denom and 0xFE (object.move's scheme byte).
  const one = Buffer.alloc(32);
  one[31] = 1;
  const named = createHash("sha3-256").update(Buffer.concat([one, Buffer.from(denom), Buffer.from([0xfe])])).digest("hex");
  const metadata = "0x" + named.replace(/^0+/, "");
  await check("move.metadata of the fee denom", async () => must((await rest.move.metadata(denom)) === metadata, `${metadata}`));
  await check("move.denom of its metadata", async () => must((await rest.move.denom(metadata)) === denom, denom));
  // The publisher of 0x1's framework keeps a table of module metadata (0x1::code::MetadataStore).
  const store = await rest.move.resource("0x1", "0x1::code::MetadataStore");
  const handle = store.data?.metadata?.handle;
  await check("move.tableInfo of 0x1's MetadataStore", async () => {
    const info = await rest.move.tableInfo(handle);
    must(info.key_type === "0x1::string::String" && info.value_type === "0x1::code::ModuleMetadata", JSON.stringify(info));
  });
  await check("move.tableEntries of 0x1's MetadataStore", async () => {
    const [entries] = await rest.move.tableEntries(handle, { "pagination.limit": "2" });
    must(entries.length === 2 && entries.every((e) => e.key.startsWith('"0x1::')), JSON.stringify(entries).slice(0, 300));
  });
}

// opchild, as a minitia answers it: one sequencer, and no bridge until one is registered
// (the engines here start the rollups of these scripts without one).
await check("opchild.validators: the sequencer", async () => {
  const [vals] = await rest.opchild.validators();
  must(vals.length === 1, `one validator, got ${JSON.stringify(vals).slice(0, 200)}`);
});
await check("opchild.bridgeInfo without a bridge: 404 code 5", async () => {
  try {
    await rest.opchild.bridgeInfo();
  } catch (err) {
    must(err?.response?.status === 404 && err?.response?.data?.code === 5, `404 code 5, got ${err?.response?.status} ${JSON.stringify(err?.response?.data)}`);
    return;
  }
  throw new Error("expected no bridge info on a rollup with no bridge");
});

