/**
 * Adding a framework (issue 48): a framework is its registry entry. A copy of the project gets a stub
 * framework by exactly what docs/dev/adding-a-framework.md asks: its package installed and named in
 * package.json, and one file generators/server/<name>.ts; then `npm run docs:cli` writes the generated
 * pages. With no other edit, the checks that read the registry pass in the copy: tsc, knip (its
 * ignore list is the registry's), the unit tests of the registry, the CLI, its reference and the docs'
 * commands, and the contract test runs the stub's cells for real (its last route answered, an invalid
 * body rejected). Before docs:cli, the frameworks page is stale and its test says so.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-stub-framework-'));
const copy = path.join(dir, 'project');
after(() => rmSync(dir, { recursive: true, force: true }));

const NAME = 'stubexpress';

/** The stub package: express under another name, as a fork or a rename would be. */
const PACKAGE = { name: NAME, version: '1.0.0', main: 'index.js', license: 'MIT' };
const PACKAGE_MAIN = "module.exports = require('express');\n";

/** The framework's one file, written as the guide says: a FrameworkGenerator default export. */
const GENERATOR = `import type { FrameworkGenerator, GenerateInput } from '../types.ts';
import { fileHeader } from '../probe.ts';
import { expressApp, EXPRESS_VALIDATION } from './express.ts';

/** A stub framework: express's app, loaded through its own package. */
const stub: FrameworkGenerator = {
  name: '${NAME}',
  target: 'server',
  packages: ['${NAME}', 'zod'],
  validation: EXPRESS_VALIDATION,
  generate(input: GenerateInput): string {
    const app = expressApp(input);
    return \`\${fileHeader('${NAME}', input.variant, input.routes)}
\${app.requires.replace("require('express')", "require('${NAME}')")}\${app.validation}
__csMark('imported');
\${app.build}
__csMark('startup');
const server = app.listen(__csPort, __csHost, (error) => (error ? __csFail(error) : __csReady(server)));
server.on('error', __csFail);
\`;
  },
};

export default stub;
`;

function run(command: string, args: string[]): { status: number | null; out: string } {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_TEST_CONTEXT; // the copy's own node --test reports to its own stdout
  const result = spawnSync(command, args, { cwd: copy, encoding: 'utf8', timeout: 300_000, env, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, out: `${result.stdout}\n${result.stderr}` };
}
const node = (args: string[]) => run(process.execPath, args);
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

describe('a new framework: its package and one generator file, no other edit', () => {
  before(() => {
    // the checkout's tracked files, less the published runs and the generated cells (which no check below reads)
    const parts = ['.ci', '.dependency-cruiser.cjs', '.gitignore', '.prettierignore', '.prettierrc.json', 'Makefile', 'README.md'];
    parts.push(
      'action.yml',
      'bin',
      'docs',
      'eslint.config.js',
      'generators',
      'knip.ts',
      'metrics',
      'package.json',
      'test',
      'tsconfig.json',
    );
    for (const part of parts) cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
    // node_modules: the checkout's packages, linked one by one, and the stub installed beside them
    mkdirSync(path.join(copy, 'node_modules'));
    for (const entry of readdirSync(path.join(ROOT, 'node_modules')))
      symlinkSync(path.join(ROOT, 'node_modules', entry), path.join(copy, 'node_modules', entry));
    const stub = path.join(copy, 'node_modules', NAME);
    mkdirSync(stub);
    writeFileSync(path.join(stub, 'package.json'), `${JSON.stringify(PACKAGE, null, 2)}\n`);
    writeFileSync(path.join(stub, 'index.js'), PACKAGE_MAIN);
    // what the guide asks: the package named in package.json (npm install --save-exact), the generator file
    const manifest = JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    manifest.devDependencies[NAME] = PACKAGE.version;
    writeFileSync(path.join(copy, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(path.join(copy, 'generators', 'server', `${NAME}.ts`), GENERATOR);
  });

  it("before npm run docs:cli, the frameworks page's registry table is stale, and its test says so", () => {
    const result = node(['--import', 'tsx', '--test', 'test/unit/knip-frameworks.test.ts']);
    assert.notEqual(result.status, 0, result.out);
    assert.match(result.out, /frameworks\.md is stale: npm run docs:cli/);
  });

  it('npm run docs:cli writes the stub into the registry table', () => {
    const result = node(['--import', 'tsx', 'metrics/tools/help-md.ts']);
    assert.equal(result.status, 0, result.out);
    const page = readFileSync(path.join(copy, 'docs', 'guide', 'frameworks.md'), 'utf8');
    assert.match(page, new RegExp(`^\\| \`${NAME}\` \\| \`${NAME}\`, \`zod\` \\|`, 'm'));
  });

  it('tsc --noEmit and knip pass (knip ignores the stub package because the registry names it)', () => {
    const tsc = run(bin('tsc'), ['--noEmit']);
    assert.equal(tsc.status, 0, tsc.out);
    const knip = run(bin('knip'), []);
    assert.equal(knip.status, 0, knip.out);
  });

  it("the unit tests that read the registry, the CLI and the docs' commands pass", () => {
    const files = [
      'knip-frameworks',
      'parse',
      'run-bounds',
      'cli-usage',
      'cli-reference',
      'doc-commands',
      'cloud-function-name',
      'npm-install',
    ];
    const result = node(['--import', 'tsx', '--test', ...files.map((f) => `test/unit/${f}.test.ts`)]);
    assert.equal(result.status, 0, result.out);
    assert.match(result.out, /^# fail 0$/m);
  });

  it('the contract test runs the stub: N distinct routes, the same bytes twice, its last route answered, a bad body refused', () => {
    const result = node(['--import', 'tsx', '--test', `--test-name-pattern=generator ${NAME}`, 'test/e2e/generators.test.ts']);
    assert.equal(result.status, 0, result.out);
    assert.match(result.out, new RegExp(`generator ${NAME}`));
    assert.match(result.out, /answers its last route and rejects a body without name/);
    assert.doesNotMatch(result.out, new RegExp(`${NAME}: skipped`));
    assert.match(result.out, /^# fail 0$/m);
  });
});
