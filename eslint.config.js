// Lint: ESLint's recommended rules and typescript-eslint's strict type-aware set (it reads tsconfig.json's program)
// for the TypeScript in generators/, metrics/ and test/; plain JavaScript (the config files, test/fixtures/*.js and *.mjs) gets
// the rules that need no types. Layout is prettier's job; import cycles are dependency-cruiser's (npm run cycles).
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['generated/', 'results/', '.runtimes/', '.versions/', '.cache/']),
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@stylistic': stylistic },
    rules: {
      // prettier breaks code at 140 but cannot break a long string, template or comment
      '@stylistic/max-len': ['error', { code: 140 }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // node:test's describe() and it() return promises that the runner itself awaits
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      // numbers and booleans in template literals are how every message and generated line is written
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `(error) => reject(error)` is the shorthand every callback uses; a void value returned from a block is still reported
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // with noUncheckedIndexedAccess every `list[0]` is `T | undefined`: `!` is the explicit, greppable claim that it is there
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // a function a reader can hold in view: longer ones are split into named steps (tests are tables and stay as long as they need)
    files: ['metrics/**/*.ts', 'generators/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // the use cases meet the machine only through what they are given (ports.ts): no process, no command line;
    // ports.ts and fake.ts are where the real and the fake machine are wired
    files: ['metrics/pipeline/**/*.ts'],
    ignores: ['metrics/pipeline/ports.ts', 'metrics/pipeline/fake.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'a use case gets the machine injected (ports.ts); read process in cli/' },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:process', 'process', 'commander', '@commander-js/extra-typings'].map((name) => ({
            name,
            message: 'a use case gets the machine injected and parses no command line',
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // the HTML pages' own scripts: classic scripts in the browser, after vega's bundle (which defines `vega`)
    files: ['metrics/report/report-page.js', 'metrics/report/table-sort.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, vega: 'readonly' } },
  },
  {
    files: ['test/fixtures/**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // the Lambda fixtures are the app part of a generated file: the test puts the probe, which defines __csMark, on top
    files: ['test/fixtures/lambda-*.js'],
    languageOptions: { globals: { __csMark: 'readonly' } },
  },
);
