// The scoring contract as an Ignition module: the artifact is the project's own solc build
// (contracts/evm/artifacts, named by VIPSCORE_ARTIFACTS), the initial stage a parameter.
const fs = require('node:fs');
const path = require('node:path');
const { buildModule } = require('@nomicfoundation/hardhat-ignition/modules');

const dir = process.env.VIPSCORE_ARTIFACTS;
if (!dir) throw new Error('VIPSCORE_ARTIFACTS is not set');
const artifact = {
  _format: 'hh-sol-artifact-1',
  contractName: 'VipScore',
  sourceName: 'contracts/evm/VipScore.sol',
  abi: JSON.parse(fs.readFileSync(path.join(dir, 'VipScore.abi.json'), 'utf8')),
  bytecode: '0x' + fs.readFileSync(path.join(dir, 'VipScore.bin'), 'utf8').trim().replace(/^0x/, ''),
  deployedBytecode: '0x' + fs.readFileSync(path.join(dir, 'VipScore.bin-runtime'), 'utf8').trim().replace(/^0x/, ''),
  linkReferences: {},
  deployedLinkReferences: {},
};

module.exports = buildModule('VipScoreModule', (m) => {
  const vipScore = m.contract('VipScore', artifact, [m.getParameter('initStage')]);
  return { vipScore };
});
