// Makes test/fixtures/backup/old-store.tgz: the data folder (embedded Neo4j store and uploaded files)
// of an earlier Skein, written by that commit's own service, seeded through its API by seedStore.
// Run from this checkout with a checkout of the older commit beside it (its node_modules and built
// launcher ready: `npm ci && npm run build:neo4j` there):
//   npx tsx test/backup/make-old-store-fixture.ts /path/to/old-checkout
// The answers of the seeded reads as the old service gave them go to old-store.json beside it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { processApi } from '../support/process-api.js';
import { freePort } from '../support/test-neo4j.js';
import { serviceEnv } from './backup-support.js';
import { readAll, seedStore } from './store-seed.js';

const oldCheckout = process.argv[2];
if (!oldCheckout) throw new Error('usage: make-old-store-fixture.ts <old checkout>');
const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'skein-old-store-')), 'data');
const httpPort = await freePort();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  HOST: '127.0.0.1',
  ...serviceEnv(dataDir, httpPort, await freePort()),
};
delete env.NODE_OPTIONS;
const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
  cwd: oldCheckout,
  env,
  stdio: 'inherit',
});
const url = `http://127.0.0.1:${httpPort}`;
for (;;) {
  const ready = await fetch(`${url}/healthz`).then(
    (res) => res.ok,
    () => false,
  );
  if (ready) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}
const api = processApi(url);
const store = await seedStore(api, 'oldstoreword');
const answers = await readAll(api, store);
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
const fixtures = path.join(PROJECT_ROOT, 'test', 'fixtures', 'backup');
mkdirSync(fixtures, { recursive: true });
// The password file stays behind: the launcher sets a new one on the store at its next start.
await createTar({ gzip: true, cwd: dataDir, file: path.join(fixtures, 'old-store.tgz'), portable: true }, [
  'neo4j',
  'files',
]);
writeFileSync(path.join(fixtures, 'old-store.json'), `${JSON.stringify({ url, store, answers }, null, 2)}\n`);
console.log(`wrote ${fixtures}/old-store.tgz from ${oldCheckout}`);
