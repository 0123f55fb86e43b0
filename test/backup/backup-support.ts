// Runs `npm run admin -- backup|restore` as an operator does (the admin entry under tsx, its own
// process), and the service processes a backup test needs, each on its own data folder.
import { spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { TEST_ADMIN } from '../support/test-server.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runAdmin(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/admin-cli.ts', ...args], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

export function serviceEnv(dataDir: string, httpPort: number, neo4jPort: number): Record<string, string> {
  return {
    PORT: String(httpPort),
    PUBLIC_URL: `http://127.0.0.1:${httpPort}`,
    SKEIN_DATA_DIR: dataDir,
    SKEIN_NEO4J_PORT: String(neo4jPort),
    SKEIN_NEO4J_HEAP: '512m',
    SKEIN_ADMIN_TAG: TEST_ADMIN.tag,
    SKEIN_ADMIN_PASSWORD: TEST_ADMIN.password,
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    SKEIN_LOGIN_FAILURES_PER_15_MIN: '100000',
    SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'silent',
  };
}

export async function stopService(service: ServiceProcess | undefined): Promise<void> {
  if (!service) return;
  service.kill('SIGTERM');
  await service.exited;
}

export function startService(env: Record<string, string>): Promise<ServiceProcess> {
  return startServiceProcess(env);
}
