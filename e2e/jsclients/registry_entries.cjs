// Prints every entry the published registry package (@initia/initia-registry) holds, as one
// JSON array of {network, folder, chain, assetlist}: the package ships them as CommonJS
// modules (main/<network>/<folder>/chain.js and assets.js), not as the registry's JSON files.
const fs = require("fs");
const path = require("path");

const root = path.resolve(process.argv[2], "main");
const out = [];
for (const network of fs.readdirSync(root).sort()) {
  const dir = path.join(root, network);
  if (!fs.statSync(dir).isDirectory()) continue;
  for (const folder of fs.readdirSync(dir).sort()) {
    const chain = path.join(dir, folder, "chain.js");
    if (!fs.existsSync(chain)) continue;
    const assets = path.join(dir, folder, "assets.js");
    out.push({
      network,
      folder,
      chain: require(chain).default,
      assetlist: fs.existsSync(assets) ? require(assets).default : null,
    });
  }
}
process.stdout.write(JSON.stringify(out));
