// `npm start`: runs the compiled service (dist/) in this very process, compiling src/ first when
// dist/ is missing or older than any source file. Production runs plain JavaScript under node: no
// tsx loader and no second Node process, which cost memory (about 120 MiB) and start-up time.
// Staleness is judged by modification times, which is what a developer editing src/ changes.
// package.json runs it as `exec node scripts/start.mjs`: npm starts a script through `sh -c`, and
// dash neither passes on the SIGTERM npm forwards nor execs its one command by itself, so a SIGTERM
// to npm ended npm and the shell and left this process and its Neo4j running
// (docs/decisions/032-clean-stops.md).
import { spawnSync } from 'node:child_process';
import console from 'node:console';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const entry = path.join(root, 'dist', 'src', 'start.js');
const buildInputs = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The newest modification time under a file or folder, in ms (0 when absent). */
function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

function isStale() {
  if (!existsSync(entry)) return true;
  const sources = Math.max(...buildInputs.map((input) => newestMtime(path.join(root, input))));
  return sources > newestMtime(path.join(root, 'dist', 'src'));
}

if (isStale()) {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    console.error('dist/ is missing or stale and TypeScript is not installed: run `npm install` first.');
    process.exit(1);
  }
  // A fresh clone has no dist/ yet: that is the first build, not a change.
  console.error(
    existsSync(entry)
      ? 'Compiling src/ to dist/ (it changed since the last build) ...'
      : 'Building the service into dist/ (first start only) ...',
  );
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

await import(pathToFileURL(entry).href);
