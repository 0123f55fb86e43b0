// Jest loads global setup outside its TypeScript transform, so tsx imports the TypeScript module.
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { startTestNeo4j } = await tsImport('./support/test-neo4j.ts', import.meta.url);
  await startTestNeo4j();
}
