// Type-aware lint; Prettier owns formatting (eslint-config-prettier switches off clashing rules).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  // sdks/python/.venv is the Python SDK's virtualenv (sdks/python/setup-venv.sh): third-party files.
  // sdks/typescript/dist is the TypeScript SDK's build (npm run build there, or npm pack).
  {
    ignores: [
      'dist/',
      'node_modules/',
      'neo4j/',
      'data/',
      'coverage/',
      'sdks/python/.venv/',
      'sdks/typescript/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], extends: [tseslint.configs.disableTypeChecked] },
  prettier,
);
