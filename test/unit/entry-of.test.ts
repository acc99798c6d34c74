/** `measure --entry "FILE ARGS…"`: a file name with spaces is one file; the words after it are its arguments. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { entryOf } from '../../metrics/pipeline/apps.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'coldstart-entry-'));
after(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(path.join(dir, 'Orders API.mjs'), '');
writeFileSync(path.join(dir, 'server.js'), '');

describe('entryOf', () => {
  it('a file named with spaces is the entry', () => {
    assert.deepEqual(entryOf('Orders API.mjs', dir), { file: 'Orders API.mjs', args: [] });
    assert.deepEqual(entryOf('Orders API.mjs --port 0', dir), { file: 'Orders API.mjs', args: ['--port', '0'] });
  });
  it('a plain file and its arguments, split at spaces', () => {
    assert.deepEqual(entryOf('  server.js --flag  x ', dir), { file: 'server.js', args: ['--flag', 'x'] });
  });
  it('no file: the first word, for the caller to refuse by name', () => {
    assert.deepEqual(entryOf('missing.js a', dir), { file: 'missing.js', args: ['a'] });
  });
});
