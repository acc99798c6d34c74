/**
 * knip's configuration. The framework packages (which the generated files load, never the project's code)
 * are ignored as dependencies, and their list is the registry's (generators/packages.ts), so adding a
 * framework needs no edit here (test/unit/knip-frameworks.test.ts checks what it ignores).
 */
import { readFileSync } from 'node:fs';
import { frameworkPackages, knipFrameworkPatterns } from './generators/packages.ts';

const manifest = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };

/** The settings, as knip reads them (the test reads the same). */
export const knipSettings = async () => ({
  entry: ['generators/server/*.ts', 'generators/lambda/*.ts', 'test/**/*.test.ts', 'test/fixtures/**/*.{js,mjs,cjs,ts}'],
  project: ['metrics/**/*.ts', 'generators/**/*.ts', 'test/**/*.ts', 'bin/*.js'],
  ignoreExportsUsedInFile: true,
  ignoreDependencies: [...knipFrameworkPatterns(await frameworkPackages(), Object.keys(manifest.devDependencies)), 'prettier'],
  ignoreBinaries: ['strace', 'hyperfine', 'cfn-lint', 'fincore', 'mount', 'umount', 'mkfifo', 'unshare', 'moto_server'],
});

export default knipSettings;
