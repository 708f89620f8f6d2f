// Builds contracts/evm with the solc pinned in contracts/package.json from the committed
// standard-JSON input, writing artifacts/VipScore.{abi.json,bin,bin-runtime}.
//   node build.js          write the artifacts
//   node build.js --check  exit 1 if a rebuild would change a committed artifact
//   node build.js --variant SRC OUT_DIR
//                          compile SRC (a variant of VipScore.sol, such as the known-bad
//                          contracts the conformance tests build) with the same settings into
//                          OUT_DIR; the committed artifacts are left alone
'use strict';
const fs = require('fs');
const path = require('path');
const solc = require(path.join(__dirname, '..', 'node_modules', 'solc'));

const here = __dirname;
const check = process.argv.includes('--check');
const variantAt = process.argv.indexOf('--variant');
const variant = variantAt >= 0 ? { src: process.argv[variantAt + 1], out: process.argv[variantAt + 2] } : null;
if (variant && (!variant.src || !variant.out)) {
  process.stderr.write('contracts/evm: --variant needs SRC and OUT_DIR\n');
  process.exit(2);
}
// The installed compiler must be the one package.json pins (npm ci from the lockfile).
const pinned = require(path.join(here, '..', 'package.json')).devDependencies.solc;
if (!solc.version().startsWith(pinned + '+')) {
  process.stderr.write(`contracts/evm: solc ${solc.version()} is installed but ${pinned} is pinned: run npm ci --prefix contracts\n`);
  process.exit(1);
}
const input = JSON.parse(fs.readFileSync(path.join(here, 'input.json'), 'utf8'));
// Inline the sources named by url, so the compiler sees exactly the committed files.
for (const [name, src] of Object.entries(input.sources)) {
  if (src.urls) {
    const file = variant ? variant.src : path.join(here, src.urls[0]);
    input.sources[name] = { content: fs.readFileSync(file, 'utf8') };
  }
}
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors || []).filter((e) => e.severity === 'error');
for (const e of out.errors || []) {
  process.stderr.write(e.formattedMessage + '\n');
}
if (errors.length > 0) {
  process.exit(1);
}
const c = out.contracts['VipScore.sol'].VipScore;
const artifacts = {
  'VipScore.abi.json': JSON.stringify(c.abi, null, 2) + '\n',
  'VipScore.bin': c.evm.bytecode.object + '\n',
  'VipScore.bin-runtime': c.evm.deployedBytecode.object + '\n',
};
const dir = variant ? variant.out : path.join(here, 'artifacts');
let stale = [];
for (const [file, text] of Object.entries(artifacts)) {
  const p = path.join(dir, file);
  if (check) {
    const have = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
    if (have !== text) stale.push(file);
  } else {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(p, text);
  }
}
if (check && stale.length > 0) {
  process.stderr.write(`contracts/evm: a rebuild with solc ${solc.version()} changes ${stale.join(', ')}: run make contracts and commit\n`);
  process.exit(1);
}
process.stdout.write(`contracts/evm: solc ${solc.version()} ${check ? 'reproduces' : 'wrote'} ${Object.keys(artifacts).join(', ')}\n`);
