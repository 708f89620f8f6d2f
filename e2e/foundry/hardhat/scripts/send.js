// A plain value transfer with Hardhat's default fees (`hardhat run scripts/send.js`): the
// signer is Hardhat's from the network config, which prices the tx itself (no gasPrice in
// the config). Prints one JSON line: the fees Hardhat chose, the base fee of the block
// before, and the receipt.
const hre = require('hardhat');

async function main() {
  const [signer] = await hre.ethers.getSigners();
  const before = await hre.ethers.provider.getBlock('latest');
  const tx = await signer.sendTransaction({ to: signer.address, value: 1n });
  const receipt = await tx.wait();
  const out = {
    type: tx.type,
    maxFeePerGas: tx.maxFeePerGas?.toString(),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas?.toString(),
    gasPrice: tx.gasPrice?.toString(),
    baseFeePerGas: before.baseFeePerGas?.toString(),
    status: receipt.status,
    blockNumber: receipt.blockNumber,
  };
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  console.error(err.shortMessage || err.message);
  process.exitCode = 1;
});
