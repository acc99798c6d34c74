/**
 * A run folder a user left in the checkout (`npm run measure -- --out base`) never fails npm test's
 * checks (issue 38): a copy of the golden run, with an export JSON laid out as JSON.stringify lays it
 * out and a script eslint refuses, is planted at the checkout's root. Plain prettier and eslint fail on
 * it (the control); `npm run format:check` passes with it there, and the files eslint and prettier get
 * from metrics/tools/tracked.ts (npm run lint, npm test's checks) leave it out. The folder is removed
 * afterwards.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toolCommand, trackedFiles } from '../../metrics/tools/tracked.ts';
import { FIXTURES, ROOT } from '../support/helpers.ts';

const PLANTED = `base-left-by-a-user-${process.pid}`;
const dir = path.join(ROOT, PLANTED);

function npx(args: string[]): { status: number | null; output: string } {
  const ran = spawnSync('npx', ['--no-install', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
  return { status: ran.status, output: `${ran.stdout}\n${ran.stderr}` };
}

describe('a run folder left in the checkout', { timeout: 900_000 }, () => {
  before(() => {
    cpSync(path.join(FIXTURES, 'golden-run'), dir, { recursive: true });
    writeFileSync(path.join(dir, 'export.json'), `${JSON.stringify({ results: [{ times: [0.1, 0.2] }] }, null, 2)}\n`);
    writeFileSync(path.join(dir, 'bundle.js'), 'var unused = 1;;\n');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('would fail plain prettier and eslint (the control)', () => {
    assert.equal(npx(['prettier', '--check', '--log-level', 'warn', PLANTED]).status, 1, 'prettier finds unformatted files in it');
    assert.equal(npx(['eslint', '--no-warn-ignored', path.join(PLANTED, 'bundle.js')]).status, 1, 'eslint refuses its script');
  });

  it('is not among the files eslint and prettier check', () => {
    const files = trackedFiles(ROOT);
    assert.ok(files && files.length > 100, 'git lists the checkout');
    assert.ok(files.includes('metrics/cli/main.ts') && files.includes('package.json'));
    for (const tool of ['eslint', 'prettier'] as const) {
      const command = toolCommand(tool, [], files);
      assert.ok(!command.some((word) => word.startsWith(PLANTED)), `${tool} is not given the run folder`);
      assert.ok(!command.includes('.'), `${tool} is not given the whole checkout`);
    }
    assert.ok(toolCommand('eslint', [], files).includes('metrics/cli/main.ts'), 'eslint still lints the source');
  });

  it('npm run format:check passes', () => {
    const checked = spawnSync('npm', ['run', '-s', 'format:check'], { cwd: ROOT, encoding: 'utf8', timeout: 600_000 });
    assert.equal(checked.status, 0, `${checked.stdout}\n${checked.stderr}`);
  });
});
