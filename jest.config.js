// Tests run as ESM through ts-jest (transpile only; `npm run lint` type-checks), against one real
// Neo4j started by test/global-setup.ts for the whole run.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  globalSetup: './test/global-setup.mjs',
  globalTeardown: './test/global-teardown.mjs',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
