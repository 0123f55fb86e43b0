// What the test run needs from the system beside Node, made sure of before any test starts, so that
// `npm test` on a fresh Debian machine is the whole set-up (README): Java 17 and Maven build and run
// the embedded Neo4j, redis-server serves the multi-instance tests, Chromium the browser tests, and
// Python 3 with venv the Python SDK's tests. Missing ones are installed with apt-get when this
// process may (root, Debian), as .ci/run relies on; otherwise the run stops at once with the one
// command that installs them, instead of failing test by test later.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CHROMIUM_PATH } from './browser.js';
import { REDIS_SERVER_BINARY } from './redis-server.js';

interface Need {
  /** The Debian package that provides it. */
  pkg: string;
  present: () => boolean;
}

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

const NEEDS: Need[] = [
  { pkg: 'openjdk-17-jdk-headless', present: () => onPath('java') },
  { pkg: 'maven', present: () => onPath('mvn') },
  { pkg: 'redis-server', present: () => existsSync(REDIS_SERVER_BINARY) },
  { pkg: 'chromium', present: () => existsSync(CHROMIUM_PATH) },
  { pkg: 'python3', present: () => onPath('python3') },
  {
    pkg: 'python3-venv',
    present: () => spawnSync('python3', ['-c', 'import ensurepip, venv']).status === 0,
  },
];

function missingPackages(): string[] {
  return NEEDS.filter((need) => !need.present()).map((need) => need.pkg);
}

function mayInstall(): boolean {
  return process.getuid?.() === 0 && onPath('apt-get');
}

/** Installs what is missing when it can; throws naming the command to run when it cannot. */
export function ensureSystemPackages(): void {
  const missing = missingPackages();
  if (missing.length === 0) return;
  const command = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (!mayInstall()) {
    throw new Error(
      `The tests need Debian packages that are not installed: ${missing.join(', ')}. Run:\n\n` +
        `  sudo sh -c '${command}'\n\nthen npm test again.`,
    );
  }
  console.log(`npm test: installing ${missing.join(', ')} with apt-get (once)`);
  const run = spawnSync('sh', ['-c', command], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  const still = missingPackages();
  if (run.status !== 0 || still.length > 0) {
    throw new Error(`apt-get could not install ${still.join(', ') || missing.join(', ')}; run: ${command}`);
  }
}
