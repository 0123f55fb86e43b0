import { tsImport } from 'tsx/esm/api';

export default async function globalTeardown() {
  const { stopTestNeo4j } = await tsImport('./support/test-neo4j.ts', import.meta.url);
  await stopTestNeo4j();
}
