// Jest loads global setup outside its TypeScript transform, so tsx imports the TypeScript module.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  // First: on a fresh machine, `npm test` installs the system packages the tests need (or says how).
  const { ensureSystemPackages } = await tsImport('./support/system-packages.ts', import.meta.url);
  ensureSystemPackages();
  const { startTestNeo4j } = await tsImport('./support/test-neo4j.ts', import.meta.url);
  await startTestNeo4j();
}
