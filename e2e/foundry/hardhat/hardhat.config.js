// Hardhat 2 as a rollup team points it at its rollup: one network from the env file `vipctl
// localnet up` writes (JSON_RPC_URL, PRIVATE_KEY), with Hardhat's own fee defaults (no
// gasPrice: Hardhat prices each tx from the node's base fee and eth_maxPriorityFeePerGas)
// and Ignition's own defaults (5 confirmations on any chain but Hardhat's). Nothing is
// compiled here: the scoring contract comes from the project's own solc build
// (contracts/evm/artifacts), so Hardhat never downloads a compiler.
require('@nomicfoundation/hardhat-ethers');
require('@nomicfoundation/hardhat-chai-matchers');
require('@nomicfoundation/hardhat-ignition-ethers');

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (source the env file vipctl localnet up wrote)`);
  return v;
};

module.exports = {
  defaultNetwork: 'localnet',
  networks: {
    localnet: { url: env('JSON_RPC_URL'), accounts: [env('PRIVATE_KEY')] },
  },
  mocha: { timeout: 120000 },
};
