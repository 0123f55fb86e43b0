// `npm start` on a machine without Java or Maven (issue 39, item 5): the service stops at once and
// names the one command that installs both, or the way around them (NEO4J_URI), instead of a stack
// trace about a process that could not be spawned.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'skein-no-java-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * Runs the service's entry with a PATH that holds node alone (node's own folder may well hold java
 * and mvn too, as /usr/bin does); answers its exit code and output.
 */
function startWithoutJava(): Promise<{ code: number | null; output: string }> {
  const bin = path.join(scratch, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  // nice(1), which starts the JVM, is part of every system the service runs on, Java or not.
  symlinkSync(
    execFileSync('sh', ['-c', 'command -v nice'], { encoding: 'utf8' }).trim(),
    path.join(bin, 'nice'),
  );
  const dataDir = path.join(scratch, 'data');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin };
  for (const name of ['NODE_OPTIONS', 'NEO4J_URI', 'NEO4J_USER', 'NEO4J_PASSWORD', 'REDIS_URL'])
    delete env[name];
  Object.assign(env, { SKEIN_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], { cwd: PROJECT_ROOT, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Should it start after all, it must not outlive the test.
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('starting without Java and Maven', () => {
  it('when neither java nor mvn is on PATH, then the service exits 1 naming the install command and NEO4J_URI', async () => {
    const { code, output } = await startWithoutJava();
    expect(code).toBe(1);
    expect(output).toMatch(/(java|mvn) was not found on PATH: the embedded Neo4j needs Java 17 and Maven/);
    expect(output).toContain('sudo apt-get install -y openjdk-17-jdk-headless maven');
    expect(output).toContain('set NEO4J_URI');
  }, 60_000);
});
