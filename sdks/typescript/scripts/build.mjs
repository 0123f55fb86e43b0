// `npm run build` (and `npm pack`, through prepack): compiles src/ twice with tsc, to ES modules in
// dist/esm and to CommonJS in dist/cjs, each with its .d.ts files, so that both `import` and
// `require()` load the package without a bundler. dist/ is removed first, so nothing stale ships.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// TypeScript is a development dependency of the repository this package lives in.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.build.json', 'tsconfig.build-cjs.json']) {
  const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
// The package is "type": "module"; this marks the CommonJS half as CommonJS for Node and TypeScript.
writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
