// Initia.js against a local EVM rollup's Cosmos face, as a wallet or app reads a minievm
// before it turns to JSON-RPC: node info, chain id, syncing, fee discovery and the funded
// account's balances in bech32 and hex. The face serves no Cosmos txs, blocks, accounts or
// minievm's /minievm/evm/v1 queries (fixtures/evm/README.md, "what still differs").
import { AccAddress, RESTClient } from "@initia/initia.js";
import { check, env, must, notImplemented } from "./report.mjs";

const chainId = env("CHAIN_ID");
const denom = env("FEE_DENOM");
const hex = env("FUNDED_HEX"); // the funded EVM account, 0x
const rest = new RESTClient(env("REST_URL"), { chainId });
const b32 = AccAddress.fromHex(hex);

await check("tendermint.nodeInfo names minievm", async () => {
  const info = await rest.tendermint.nodeInfo();
  must(info.application_version?.name === "minievm", `application_version.name minievm, got ${info.application_version?.name}`);
  must(info.default_node_info?.network === chainId, `network ${chainId}, got ${info.default_node_info?.network}`);
});
await check("tendermint.chainId", async () => must((await rest.tendermint.chainId()) === chainId, `chain id ${chainId}`));
await check("tendermint.syncing", async () => must((await rest.tendermint.syncing()) === false, "syncing false"));
await check("opchild.parameters min_gas_prices", async () => {
  const p = await rest.opchild.parameters();
  must(p.min_gas_prices.get(denom), `min_gas_prices in ${denom}, got ${p.min_gas_prices}`);
});
// Initia's tx module gas prices are the L1's routes: a minievm answers 501.
await check("tx.gasPrices refused as on a minitia", async () => notImplemented(() => rest.tx.gasPrices()));
await check("tx.gasPrice refused as on a minitia", async () => notImplemented(() => rest.tx.gasPrice(denom)));
await check("rest.gasPrices (default fee discovery)", async () => {
  const p = await rest.gasPrices();
  must(p && String(p).endsWith(denom), `discovered gas prices in ${denom}, got ${p}`);
});
await check("bank.balance (bech32 of the EVM account)", async () => {
  const [coins] = await rest.bank.balance(b32);
  must(BigInt(coins.get(denom)?.amount ?? 0) > 0n, `a ${denom} balance for ${b32}`);
});
await check("bank.balanceByDenom (bech32)", async () => {
  must(BigInt((await rest.bank.balanceByDenom(b32, denom)).amount) > 0n, `a ${denom} balance for ${b32}`);
});
// A minievm's REST reads bech32 only: the same account in 0x hex is an invalid address.
await check("bank.balanceByDenom refuses a 0x address (bech32 only)", async () => {
  let answer;
  try {
    answer = await rest.bank.balanceByDenom(hex, denom);
  } catch (err) {
    const status = err?.response?.status, data = err?.response?.data;
    must(status === 400 && data?.code === 3 && /^invalid address: decoding bech32 failed/.test(data?.message),
      `400 code 3 invalid address, got ${status} ${JSON.stringify(data ?? err?.message)}`);
    return;
  }
  must(false, `a refusal of ${hex}, got ${JSON.stringify(answer)}`);
});
