// `npm run build` (and `npm pack`, `npm publish` and `npm install --install-links <folder>`, through
// prepare): compiles src/ twice with tsc, to ES modules in dist/esm and to CommonJS in dist/cjs, each
// with its .d.ts files, so that both `import` and `require()` load the package without a bundler.
// dist/ is removed first, so nothing stale ships. A dist/ newer than every source is kept as it is
// (`--force` builds anyway), and a lock directory keeps two builds from running at once (tests pack
// and install the folder in parallel), so one never removes the files another is packing.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout } from 'node:timers/promises';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// TypeScript is a development dependency of the repository this package lives in.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = path.join(root, 'dist/esm/cli.js');
const lock = path.join(root, '.build.lock');

await withLock(() => {
  if (!process.argv.includes('--force') && fresh()) return;
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  for (const config of ['tsconfig.build.json', 'tsconfig.build-cjs.json']) {
    const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
  // The package is "type": "module"; this marks the CommonJS half as CommonJS for Node and TypeScript.
  writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
  // The `skein-sdk` command (package.json "bin"), runnable from the folder as it is.
  chmodSync(built, 0o755);
});

/** Whether the last complete build is newer than every file it is made from. */
function fresh() {
  let builtAt;
  try {
    builtAt = statSync(built).mtimeMs;
    statSync(path.join(root, 'dist/cjs/package.json'));
  } catch {
    return false;
  }
  const sources = [
    ...filesUnder(path.join(root, 'src')),
    path.join(root, 'tsconfig.build.json'),
    path.join(root, 'tsconfig.build-cjs.json'),
    fileURLToPath(import.meta.url),
  ];
  return sources.every((file) => statSync(file).mtimeMs <= builtAt);
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

/** Runs `work` holding the lock directory; a lock older than five minutes is a crashed build's. */
async function withLock(work) {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // taken over meanwhile
      }
      await setTimeout(200);
    }
  }
  try {
    work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
