/**
 * The levers' answer through a whole run, in-process with the fake deps (--debug-mode): a run that
 * varies the build records what each cell ships in meta.json (the fake deps' fixed figure per build,
 * read from no file), and its levers.md opens with the answer (the package column, one fastest and one
 * cheapest per app), drawn in chart-levers.svg; a run that varies no lever of the answer has neither.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { cellKey } from '../../metrics/core/cell.ts';
import { readMeta } from '../../metrics/store/meta-file.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

describe('a run that varies the build', () => {
  let levers: string;
  let plain: string;

  before(async () => {
    const base = tempDir();
    levers = path.join(base, 'levers');
    plain = path.join(base, 'plain');
    const args = ['run', '--frameworks', 'node-http,hono', '--routes', '1,100', '--samples', '3', '--debug-mode'];
    for (const [out, extra] of [
      [levers, ['--build', 'plain,bundle,bundle-min']],
      [plain, []],
    ] as const) {
      const result = await mainInProcess([...args, ...extra, '--out', out]);
      assert.equal(result.code, 0, result.stderr);
    }
  });

  it('meta.json records the bytes of every cell that ran', () => {
    const shipped = readMeta(levers)!.shipped!;
    const cells = readSamples(path.join(levers, 'samples.jsonl')).map((s) => s.cell);
    for (const cell of cells) assert.ok((shipped.code[cellKey(cell)]?.bytes ?? 0) > 0, cellKey(cell));
    assert.equal(readMeta(plain)!.shipped, undefined, 'nothing varies: nothing recorded');
  });

  it('levers.md opens with one answer table per app, its fastest and cheapest marked once', () => {
    const text = readFileSync(path.join(levers, 'levers.md'), 'utf8');
    assert.ok(text.indexOf('## The answer: every variant of the levers') < text.indexOf('## Each lever alone'));
    const groups = text.split('\n### ').slice(1);
    assert.deepEqual(
      groups.map((g) => g.split('\n')[0]),
      [
        'hono, 1 route, server (validated)',
        'hono, 100 routes, server (validated)',
        'node-http, 1 route, server (validated)',
        'node-http, 100 routes, server (validated)',
      ],
    );
    for (const group of groups) {
      const rows = group.split('\n').filter((l) => /^\| bundle|^\| plain/.test(l));
      assert.equal(rows.length, 3, group);
      assert.equal(rows.filter((r) => r.includes('**fastest**')).length, 1);
      assert.equal(rows.filter((r) => r.includes('**cheapest**')).length, 1);
      assert.match(
        rows.find((r) => r.startsWith('| bundle-min'))!,
        /\| 400\.0 kB \|/,
      );
    }
    assert.ok(existsSync(path.join(levers, 'chart-levers.svg')));
    assert.match(readFileSync(path.join(levers, 'summary.md'), 'utf8'), /^## The answer: every variant of the levers$/m);
  });

  it('a run where no lever varies has no levers.md, no answer and no chart', () => {
    assert.equal(existsSync(path.join(plain, 'levers.md')), false);
    assert.doesNotMatch(readFileSync(path.join(plain, 'summary.md'), 'utf8'), /The answer|Which lever helps/);
    assert.equal(existsSync(path.join(plain, 'chart-levers.svg')), false);
  });
});
