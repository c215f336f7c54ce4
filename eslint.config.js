// ESLint flat config (ESLint 9, typescript-eslint 8). `npm run lint` runs this and then `prettier --check .`;
// formatting is Prettier's job alone, so eslint-config-prettier comes last and switches off every stylistic rule.
import { builtinModules } from 'node:module';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Workflow code runs in Temporal's deterministic V8 sandbox, bundled by the worker. Like Temporal's TypeScript samples
// (.eslintrc.js: every entry of `builtinModules` except 'assert', bare and `node:`-prefixed), forbid Node built-ins there.
// Date.now, Math.random and setTimeout are NOT listed: the sandbox replaces them with deterministic versions.
const ALLOWED_NODE_BUILTINS = new Set(['assert', 'assert/strict']);
// Bare names here ('fs', 'crypto', 'fs/promises', ...); every `node:` specifier is caught by the pattern below.
const nodeBuiltinImports = builtinModules.filter((m) => !m.startsWith('_') && !m.startsWith('node:') && !ALLOWED_NODE_BUILTINS.has(m));

const WORKFLOW_SANDBOX_MESSAGE =
  'Workflow code runs in the Temporal sandbox: no Node built-ins, I/O libraries or client/worker/activity SDKs. ' +
  'Do the work in an activity and call it through proxyActivities().';

export default defineConfig(
  globalIgnores(['**/node_modules/', '.data/', '.test-data/', 'reports/', 'coverage/', 'test/fixtures/**/*.json', '.openapi/']),

  // Every deliberate exception is an `// eslint-disable-next-line <rule> -- <why>` naming its rule and its reason;
  // a directive that no longer suppresses anything is an error too.
  comments.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@eslint-community/eslint-comments/require-description': 'error',
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },

  // TypeScript: everything in tsconfig.json's `include`, type-checked through the project service.
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Forgetting to await an activity, a workflow API or a DB call is the bug class this setup exists for.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },

  // Tests: vitest's asymmetric matchers (expect.stringMatching, expect.any, ...) return `any`, assertions JSON.parse
  // responses untyped by design (the test is what checks their shape), and activity factories are destructured into
  // plain functions. The no-unsafe-* and unbound-method rules would only add noise there; everything else, including
  // no-floating-promises and no-misused-promises, stays on.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  // Plain JS (this file, web/assets/*.js): not in tsconfig, so no type information.
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
  },
  // eslint.config.js, and what runs on a merchant's machine without this repository: the listen package and the Node example.
  {
    files: ['eslint.config.js', 'packages/**/*.js', 'examples/**/*.js'],
    languageOptions: { globals: globals.node },
  },
  // The hosted page's progressive-enhancement script: an ES5 IIFE loaded with a plain <script> tag.
  {
    files: ['web/assets/**/*.js', 'demo-store/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },

  // Workflow code (runs inside the Temporal sandbox). Client-side starters (workflows/**/client.ts) run in Node.
  {
    files: ['workflows/**/*.ts'],
    ignores: ['workflows/**/client.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltinImports.map((name) => ({ name, message: WORKFLOW_SANDBOX_MESSAGE })),
            ...['@temporalio/client', '@temporalio/worker', '@temporalio/activity', 'postgres', 'pino', 'hono'].map((name) => ({
              name,
              message: WORKFLOW_SANDBOX_MESSAGE,
            })),
          ],
          patterns: [
            // Every `node:` specifier, including prefix-only modules such as node:test.
            { group: ['node:*', '!node:assert', '!node:assert/strict'], message: WORKFLOW_SANDBOX_MESSAGE },
            { group: ['@temporalio/client/*', '@temporalio/worker/*', '@temporalio/activity/*', 'hono/*', 'pino/*'], message: WORKFLOW_SANDBOX_MESSAGE },
            {
              // `import type { RefundActivities } from '../../activities/refund/index.js'` is how proxyActivities<T>() gets its type.
              group: ['**/activities', '**/activities/**'],
              allowTypeImports: true,
              message: 'Workflows may import only types from activities; call them through proxyActivities<typeof ...>().',
            },
          ],
        },
      ],
    },
  },

  // core/ is the shared library: it must not reach up into the layers that use it, nor into workflow-only APIs.
  {
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@temporalio/workflow',
              message: 'core/ is imported by the API and activities; @temporalio/workflow belongs in workflows/.',
            },
          ],
          patterns: [
            {
              group: [
                '../**/workflows',
                '../**/workflows/**',
                '../**/activities',
                '../**/activities/**',
                '../**/api',
                '../**/api/**',
                '../**/web',
                '../**/web/**',
                '../**/application',
                '../**/application/**',
              ],
              message: 'core/ must not depend on workflows/, activities/, application/, api/ or web/: move the shared piece into core/.',
            },
            { group: ['@temporalio/workflow/*'], message: 'core/ must not depend on workflow-only APIs.' },
          ],
        },
      ],
    },
  },

  // activities/ is what workflows call: it builds on core/ and is composed by worker/. Reaching back up into a workflow's
  // client or messages would tie an activity to the code that schedules it; what both need lives in core/, and what
  // must start a workflow (handing an event to delivery) is passed in as a function by the worker.
  {
    files: ['activities/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../**/workflows',
                '../**/workflows/**',
                '../**/worker',
                '../**/worker/**',
                '../**/application',
                '../**/application/**',
                '../**/api',
                '../**/api/**',
                '../**/web',
                '../**/web/**',
              ],
              message:
                'activities/ imports only core/ (and other activities/): move a shared type or constant into core/, or take what starts a workflow as a dependency.',
            },
          ],
        },
      ],
    },
  },

  // The two doors: api/ (the merchant's and the operator's HTTP API) and web/ (the customer's page and the dashboard)
  // never import each other. A use case both run, and its error type, lives in application/; what both read
  // (the locale list, schemas, stores) in core/. application/ is below both doors and imports neither.
  {
    files: ['api/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../**/web', '../**/web/**'],
              message: 'api/ must not import web/: move what both doors use into application/ (a use case) or core/ (domain, data).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['web/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../**/api', '../**/api/**'],
              message: 'web/ must not import api/: move what both doors use into application/ (a use case) or core/ (domain, data).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['application/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../**/api', '../**/api/**', '../**/web', '../**/web/**', '../**/activities', '../**/activities/**', '../**/worker', '../**/worker/**'],
              message: 'application/ is what both doors call: it builds on core/ and workflows/*/client.ts and messages.ts, never on a door or the worker.',
            },
          ],
        },
      ],
    },
  },

  // The Demo Store is a merchant: it reaches Hosted Checkout through its public HTTP APIs only, so it can be copied as it is.
  {
    files: ['demo-store/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../**/core',
                '../**/core/**',
                '../**/api',
                '../**/api/**',
                '../**/web',
                '../**/web/**',
                '../**/application',
                '../**/application/**',
                '../**/workflows',
                '../**/workflows/**',
                '../**/activities',
                '../**/activities/**',
                '../**/worker',
                '../**/worker/**',
                '@temporalio/*',
              ],
              message: 'demo-store/ is a merchant: it uses only the public HTTP APIs and what scripts/start.ts hands it.',
            },
          ],
        },
      ],
    },
  },

  prettier,
);
