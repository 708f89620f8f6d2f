// Hardhat's chai matchers on a minievm's reverts, asserting what a real minievm (v1.2.18)
// gives and the local EVM rollup must give alike: a minievm answers a reverting call or
// estimate with a bare "Reverted" and no revert data, so no matcher can decode a custom
// error, and `.reverted` itself fails on such a send; a tx sent with its own gas limit is
// mined and reverts (status 0), which `.reverted` sees once its receipt is there, not at the
// first read after the send (a block comes tens of ms later). CONTRACT_ADDRESS is the
// Ignition deployment, OPEN_STAGE its open stage; run by `hardhat test --no-compile`.
const hre = require('hardhat');
const { expect } = require('chai');
const fs = require('node:fs');
const path = require('node:path');

const abi = JSON.parse(fs.readFileSync(path.join(process.env.VIPSCORE_ARTIFACTS, 'VipScore.abi.json'), 'utf8'));
const missing = 99n; // a stage the contract never had: finalizeStage reverts StageNotFound(99)

// outcome is the error a matcher's promise rejects with ("" when it passes).
const outcome = (assertion) => Promise.resolve(assertion).then(() => '', (err) => String(err.message));

async function receiptOf(hash) {
  for (let i = 0; i < 200; i++) {
    const r = await hre.ethers.provider.getTransactionReceipt(hash);
    if (r) return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no receipt for ${hash} in 10 s`);
}

describe('chai matchers on a minievm revert (no revert data)', function () {
  let score;
  before(async function () {
    const [signer] = await hre.ethers.getSigners();
    score = new hre.ethers.Contract(process.env.CONTRACT_ADDRESS, abi, signer);
  });

  it('a send whose estimate reverts fails every revert matcher with the node\'s bare "Reverted"', async function () {
    const bare = 'failed to execute message; message index: 0: Reverted';
    expect(await outcome(expect(score.finalizeStage(missing)).to.be.reverted)).to.include(bare);
    expect(await outcome(expect(score.finalizeStage(missing)).to.be.revertedWithCustomError(score, 'StageNotFound'))).to.include(bare);
    expect(await outcome(expect(score.finalizeStage(missing)).to.be.revertedWithoutReason())).to.include(bare);
  });

  it('a reverting eth_call fails them with "Reverted"', async function () {
    expect(await outcome(expect(score.finalizeStage.staticCall(missing)).to.be.reverted)).to.equal('Reverted');
    expect(await outcome(expect(score.finalizeStage.staticCall(missing)).to.be.revertedWithCustomError(score, 'StageNotFound'))).to.equal('Reverted');
  });

  it('a tx sent with its own gas limit is mined reverted: .reverted sees it once the receipt is there', async function () {
    const opts = { gasLimit: 1000000n };
    // At once: the receipt is not there yet (the block comes after the send answers).
    const sent = score.finalizeStage(missing, opts);
    // (Within the tens of ms a block takes, so a slow client may find it there.)
    expect(await outcome(expect(sent).to.be.reverted)).to.be.oneOf(['Assertion error: receipt should not be null', '']);
    const receipt = await receiptOf((await sent).hash);
    expect(receipt.status).to.equal(0);
    await expect(sent).to.be.reverted;
    await expect(receipt).to.be.reverted;
    // The custom-error matchers read revert data only: a mined revert is "didn't revert".
    const tx = await score.finalizeStage(missing, opts);
    await receiptOf(tx.hash);
    expect(await outcome(expect(tx).to.be.revertedWithCustomError(score, 'StageNotFound'))).to.equal(
      "Expected transaction to be reverted with custom error 'StageNotFound', but it didn't revert");
  });

  it('a write that succeeds: .not.reverted once its receipt is there', async function () {
    const tx = await score.updateScores(BigInt(process.env.OPEN_STAGE), ['0x00000000000000000000000000000000000000c1'], [1n]);
    await receiptOf(tx.hash);
    await expect(tx).not.to.be.reverted;
  });
});
