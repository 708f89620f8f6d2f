// Builds the contracts of contracts/evm with the solc pinned in contracts/package.json from
// their committed standard-JSON inputs (see targets below), writing each one's
// artifacts/<Contract>.{abi.json,bin,bin-runtime}.
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
// Each target is a directory holding input.json, the sources it names, and artifacts/.
const targets = [
  { dir: here, contract: 'VipScore' }, // the VIP scoring contract
  { dir: path.join(here, 'feetoken'), contract: 'FeeToken' }, // the local rollup's fee coin
];
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

function readInput(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'input.json'), 'utf8'));
}

// Every target compiles with VipScore's settings, so the inputs must not drift apart.
const { outputSelection: _, ...baseSettings } = readInput(here).settings;
for (const t of targets) {
  const { outputSelection: __, ...settings } = readInput(t.dir).settings;
  if (JSON.stringify(settings) !== JSON.stringify(baseSettings)) {
    process.stderr.write(`contracts/evm: ${path.relative(here, path.join(t.dir, 'input.json'))} has other compiler settings than input.json\n`);
    process.exit(1);
  }
}

// build compiles target t (from src instead of its committed source, if given) and returns
// its artifacts by file name; it exits on a compile error.
function build(t, src) {
  const input = readInput(t.dir);
  // Inline the sources named by url, so the compiler sees exactly the committed files.
  for (const [name, s] of Object.entries(input.sources)) {
    if (s.urls) {
      input.sources[name] = { content: fs.readFileSync(src || path.join(t.dir, s.urls[0]), 'utf8') };
    }
  }
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  for (const e of out.errors || []) {
    process.stderr.write(e.formattedMessage + '\n');
  }
  if ((out.errors || []).some((e) => e.severity === 'error')) {
    process.exit(1);
  }
  const c = out.contracts[`${t.contract}.sol`][t.contract];
  return {
    [`${t.contract}.abi.json`]: JSON.stringify(c.abi, null, 2) + '\n',
    [`${t.contract}.bin`]: c.evm.bytecode.object + '\n',
    [`${t.contract}.bin-runtime`]: c.evm.deployedBytecode.object + '\n',
  };
}

// A variant builds VipScore only, into its own directory.
const jobs = variant
  ? [{ artifacts: build(targets[0], variant.src), dir: variant.out }]
  : targets.map((t) => ({ artifacts: build(t), dir: path.join(t.dir, 'artifacts') }));
const stale = [];
const done = [];
for (const { artifacts, dir } of jobs) {
  for (const [file, text] of Object.entries(artifacts)) {
    const p = path.join(dir, file);
    const shown = variant ? p : path.relative(here, p);
    done.push(shown);
    if (check) {
      const have = fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : null;
      if (have !== text) stale.push(shown);
    } else {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(p, text);
    }
  }
}
if (check && stale.length > 0) {
  process.stderr.write(`contracts/evm: a rebuild with solc ${solc.version()} changes ${stale.join(', ')}: run make contracts and commit\n`);
  process.exit(1);
}
process.stdout.write(`contracts/evm: solc ${solc.version()} ${check ? 'reproduces' : 'wrote'} ${done.join(', ')}\n`);
