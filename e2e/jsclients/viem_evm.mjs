// viem against a local EVM rollup's JSON-RPC with viem's own defaults, as a dApp (and the
// Skip SDK's executeRoute) sends: its fee estimate (1.2 x the latest block's base fee +
// eth_maxPriorityFeePerGas) and Hardhat's (2 x base fee + the same), each tx mined, a
// second confirmation coming with the block a minievm makes after a block with txs, and a
// revert answered as a minievm answers it (no data). The same script runs on the embedded
// EVM and on a real minievm: what it expects is what a minievm does.
//
// Env: EVM_RPC_URL, DEV_PRIVATE_KEY (0x hex).
import { createWalletClient, createPublicClient, http, defineChain } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { check, must, env } from "./report.mjs";

const rpc = env("EVM_RPC_URL");
const account = privateKeyToAccount(env("DEV_PRIVATE_KEY"));
const probe = createPublicClient({ transport: http(rpc) });
const chainId = await probe.getChainId();
const chain = defineChain({
  id: chainId, name: "local-minievm",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpc] } },
});
const pub = createPublicClient({ chain, transport: http(rpc, { retryCount: 0 }) });
const wallet = createWalletClient({ account, chain, transport: http(rpc, { retryCount: 0 }) });
const someone = "0x00000000000000000000000000000000000000a1";

const minGasPrice = await check("eth_gasPrice (the minimum gas price)", async () => {
  const p = await pub.getGasPrice();
  must(p > 0n, `a minimum gas price above 0, got ${p}`);
  return p;
});
await check("the latest block's base fee is the minimum gas price", async () => {
  const b = await pub.getBlock();
  must(b.baseFeePerGas === minGasPrice, `base fee ${minGasPrice}, got ${b.baseFeePerGas}`);
});
const fees = await check("viem's default fees meet the minimum gas price", async () => {
  const f = await pub.estimateFeesPerGas();
  must(f.maxFeePerGas >= minGasPrice && f.maxPriorityFeePerGas === 0n,
    `max fee >= ${minGasPrice} and tip 0, got ${f.maxFeePerGas} and ${f.maxPriorityFeePerGas}`);
  return f;
});
await check("a transfer with viem's defaults is mined, and confirmed twice within 2 s", async () => {
  const hash = await wallet.sendTransaction({ to: someone, value: 1n });
  const rc = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
  must(rc.status === "success", `success, got ${rc.status}`);
  const tx = await pub.getTransaction({ hash });
  must(tx.maxFeePerGas === fees.maxFeePerGas, `viem's fee cap ${fees.maxFeePerGas}, sent ${tx.maxFeePerGas}`);
  // A minievm makes one more block 100 ms after a block with txs: the second confirmation.
  await pub.waitForTransactionReceipt({ hash, confirmations: 2, pollingInterval: 50, timeout: 2_000 });
});
await check("a transfer with Hardhat's defaults (2 x base fee + eth_maxPriorityFeePerGas) is mined", async () => {
  const b = await pub.getBlock();
  const tip = await pub.estimateMaxPriorityFeePerGas();
  const hash = await wallet.sendTransaction({ to: someone, value: 1n, maxFeePerGas: 2n * b.baseFeePerGas + tip, maxPriorityFeePerGas: tip });
  const rc = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
  must(rc.status === "success", `success, got ${rc.status}`);
});
await check("a revert comes without data", async () => {
  try {
    // Init code that reverts with 0xdeadbeef.
    await pub.call({ account: account.address, data: "0x63deadbeef6000526004601cfd" });
  } catch (err) {
    const raw = err.walk((e) => e?.code === -32000 || e?.code === 3);
    must(raw?.code === -32000 && raw?.details === "Reverted" && err.walk((e) => e?.data)?.data === undefined,
      `-32000 Reverted without data, got ${raw?.code} ${raw?.details} ${JSON.stringify(err.walk((e) => e?.data)?.data)}`);
    return;
  }
  must(false, "a revert");
});
