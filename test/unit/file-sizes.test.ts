/**
 * No source file over 500 lines (issue 48): a file that grows past it holds more than one
 * responsibility, and is split by meaning (see git log for how the last ones were).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const MAX_LINES = 500;
const SOURCE = /\.(?:ts|js|mjs|cjs)$/;

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((f) => !f.split('/').includes('node_modules'));
}

const lines = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1;

test(`no source file of metrics, generators, test or bin is over ${MAX_LINES} lines`, () => {
  const files = ['metrics', 'generators', 'test', 'bin'].flatMap(sources);
  assert.ok(files.length > 500, `found ${files.length} files: the walk is not blind`);
  const over = files.map((f) => `${f}: ${lines(f)} lines`).filter((_, i) => lines(files[i]!) > MAX_LINES);
  assert.deepEqual(over, []);
});

test("the README, the user's page, is at most 220 lines (the rest lives in docs/)", () => {
  assert.ok(lines('README.md') <= 220, `README.md has ${lines('README.md')} lines`);
});
