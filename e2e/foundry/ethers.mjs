// ethers 6 against the local EVM rollup, over HTTP and WebSocket, as a dApp or a script of a
// rollup team uses it: the network, fee data, blocks, the scoring contract's reads, writes
// with ethers' own fee defaults, subscriptions (blocks, the contract's events, pending txs),
// and the answers minievm gives where geth's differ. Reads JSON_RPC_URL, JSON_RPC_WS_URL,
// PRIVATE_KEY, CONTRACT_ADDRESS and STAGE (the contract's open stage), and FEE_RULES:
// "minievm" (default; also REST_URL) checks the answers a minievm gives, "geth" leaves out
// those plain geth --dev gives otherwise (its fee market suggests tips and takes any fee cap
// above the base fee; eth_syncing and unknown receipts follow its tx indexer). Prints one
// JSON line per call: {"call": name, "ok": bool, "error"?: message}. Exits 0 once every
// call ran.
import { ethers } from 'ethers';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const abi = [
  'function stages(uint64) view returns (uint64 stage, uint64 totalScore, bool isFinalized)',
  'function getScores(uint64 stage, uint64 offset, uint64 limit) view returns (tuple(address addr, uint64 amount, uint64 index)[])',
  'function updateScores(uint64 stage, address[] addrs, uint64[] amounts)',
  'event UpdateScore(address indexed addr, uint64 indexed stage, uint64 score, uint64 totalScore)',
  'error StageFinalized(uint64 stage)',
  'error PermissionDenied(address deniedAddress)',
];

const report = (call, ok, error) => {
  const line = { call, ok };
  if (error) line.error = String(error).slice(0, 400);
  process.stdout.write(JSON.stringify(line) + '\n');
};

async function check(name, fn) {
  try {
    const ok = await fn();
    report(name, ok !== false, ok === false ? 'unexpected answer' : undefined);
  } catch (err) {
    report(name, false, err.shortMessage || err.message);
  }
}

// staleNonce says a send was refused for a nonce the node had already seen used. A node can
// answer the pending nonce from before its newest block for a moment (geth resets its pool
// after the head moves; ethers keeps an answer for 250 ms); a minievm under load refuses
// it in the Cosmos words of its ante handler, which ethers does not classify. A wallet asks
// for the nonce again.
function staleNonce(err) {
  return err.code === 'NONCE_EXPIRED' || /account sequence mismatch|invalid nonce|nonce too low/i.test(err.message);
}

// untilSeen re-reads until read answers true, for up to 10 s: the write a receipt promises
// can take a moment to show in reads at "latest" on a minievm.
async function untilSeen(read, ms = 10000) {
  const end = Date.now() + ms;
  for (;;) {
    if (await read()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: nothing in ${ms} ms`)), ms))]);

const minievm = (process.env.FEE_RULES || 'minievm') === 'minievm';

async function main() {
  const stage = BigInt(env('STAGE'));
  const address = ethers.getAddress(env('CONTRACT_ADDRESS'));
  const http = new ethers.JsonRpcProvider(env('JSON_RPC_URL'), undefined, { staticNetwork: true });
  const ws = new ethers.WebSocketProvider(env('JSON_RPC_WS_URL'));
  const wallet = new ethers.Wallet(env('PRIVATE_KEY'), http);
  const score = new ethers.Contract(address, abi, wallet);
  const wsScore = new ethers.Contract(address, abi, ws);

  for (const [name, p] of [['http', http], ['ws', ws]]) {
    await check(`${name}: network`, async () => (await p.getNetwork()).chainId === BigInt(await p.send('eth_chainId', [])));
    await check(`${name}: block number`, async () => (await p.getBlockNumber()) > 0);
    await check(`${name}: latest block has a base fee`, async () => (await p.getBlock('latest')).baseFeePerGas > 0n);
    if (minievm) {
      await check(`${name}: eth_syncing is false`, async () => (await p.send('eth_syncing', [])) === false);
      await check(`${name}: receipt of an unknown tx is null`, async () => (await p.getTransactionReceipt(ethers.ZeroHash.replace(/0$/, '1'))) === null);
    }
    await check(`${name}: balance at the earliest block`, async () => (await p.getBalance(wallet.address, 'earliest')) >= 0n);
    await check(`${name}: code of the contract`, async () => (await p.getCode(address)).length > 2);
    await check(`${name}: stages() of the open stage`, async () => {
      const s = await new ethers.Contract(address, abi, p).stages(stage);
      return s.stage === stage && s.isFinalized === false;
    });
  }

  // minievm's fee rules, as ethers reads them.
  let fees;
  await check('fee data', async () => {
    fees = await http.getFeeData();
    return fees.gasPrice > 0n && fees.maxFeePerGas > 0n && fees.maxPriorityFeePerGas !== null;
  });
  if (minievm) await check('fee data: eth_maxPriorityFeePerGas is 0', async () => fees.maxPriorityFeePerGas === 0n);
  if (minievm) await check('fee data: eth_gasPrice is the minimum gas price', async () => {
    const min = BigInt((await (await fetch(`${env('REST_URL')}/cosmos/base/node/v1beta1/config`)).json()).minimum_gas_price.replace(/umin$/, '').split('.')[0]);
    return fees.gasPrice === min && fees.maxFeePerGas >= min;
  });
  await check('fee history answers', async () => (await http.send('eth_feeHistory', ['0x4', 'latest', [50]])).baseFeePerGas.length === 5);

  // Subscriptions, opened before the write they must see.
  const heads = new Promise((resolve) => ws.once('block', resolve));
  const pending = new Promise((resolve) => ws.once('pending', resolve));
  const events = new Promise((resolve) => wsScore.once('UpdateScore', (addr, s, amount, total, ev) => resolve({ addr, s, amount, ev })));
  const someone = ethers.Wallet.createRandom().address;

  let receipt;
  await check('updateScores with ethers fee defaults', async () => {
    const tx = await score.updateScores(stage, [someone], [77n]);
    receipt = await tx.wait();
    return receipt.status === 1;
  });
  await check('ws: a new block', async () => (await withTimeout(heads, 10000, 'newHeads')) >= receipt.blockNumber - 1);
  await check('ws: a pending tx', async () => ethers.isHexString(await withTimeout(pending, 10000, 'newPendingTransactions'), 32));
  await check('ws: the UpdateScore event', async () => {
    const e = await withTimeout(events, 10000, 'logs');
    return e.addr === someone && e.s === stage && e.amount === 77n;
  });
  await check('receipt logs decode', async () => score.interface.parseLog(receipt.logs.find((l) => l.address === address)).name === 'UpdateScore');
  await check('getScores reads the write back', async () => {
    // A minievm can answer a read right after the receipt from the state before the tx
    // (its EVM indexer serves receipts before the state commits): re-read until it shows.
    return untilSeen(async () => (await score.getScores(stage, 0n, 1000n)).some((r) => r.addr === someone && r.amount === 77n));
  });
  await check('queryFilter by topic', async () => {
    const logs = await score.queryFilter(score.filters.UpdateScore(someone), receipt.blockNumber, receipt.blockNumber);
    return logs.length === 1;
  });
  if (minievm) {
    // A minievm drops revert data: ethers sees a CALL_EXCEPTION without data (the node's
    // -32000 "Reverted"), and a dApp reads the cause from the contract's state.
    await check('a revert comes without data (minievm: Reverted)', async () => {
      const stranger = new ethers.Contract(address, abi, ethers.Wallet.createRandom().connect(http));
      try {
        await stranger.updateScores.staticCall(stage, [someone], [1n]);
        return false;
      } catch (err) {
        return err.code === 'CALL_EXCEPTION' && err.revert == null && err.data == null && err.info?.error?.code === -32000 && err.info?.error?.message === 'Reverted';
      }
    });
  } else {
    await check('a custom error decodes', async () => {
      const stranger = new ethers.Contract(address, abi, ethers.Wallet.createRandom().connect(http));
      try {
        await stranger.updateScores.staticCall(stage, [someone], [1n]);
        return false;
      } catch (err) {
        return err.revert?.name === 'PermissionDenied';
      }
    });
  }
  if (minievm) await check('a tx below the minimum gas price is refused at send', async () => {
    // minievm's fee check: the fee (fee cap x gas + 1) and the fee required, in the fee denom.
    const got = (fees.gasPrice - 1n) * 200000n + 1n, required = fees.gasPrice * 200000n;
    const feeRefusal = new RegExp(`insufficient fees; got: ${got}umin required: ${required}umin: insufficient fee`);
    for (let attempt = 1; ; attempt++) {
      try {
        await wallet.sendTransaction({ to: someone, value: 1n, gasLimit: 200000n, maxFeePerGas: fees.gasPrice - 1n, maxPriorityFeePerGas: 0n });
        return false;
      } catch (err) {
        if (feeRefusal.test(err.message)) return true;
        if (!staleNonce(err) || attempt === 5) throw new Error(`refused in other words: ${err.message.slice(0, 400)}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
  });
  await check('a legacy tx at eth_gasPrice is mined', async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const tx = await wallet.sendTransaction({ to: someone, value: 1n, type: 0, gasPrice: fees.gasPrice });
        return (await tx.wait()).status === 1;
      } catch (err) {
        if (!staleNonce(err) || attempt === 5) throw err;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
  });
  await check('a batch of requests answers', async () => {
    const res = await fetch(env('JSON_RPC_URL'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }))),
    });
    return (await res.json()).length === 3;
  });
  await ws.destroy();
  http.destroy();
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err.stack || err}\n`);
    process.exit(1);
  },
);
