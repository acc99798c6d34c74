/**
 * Raw data is sacred (issue 20, finding 3): no output option may name a run folder's raw data or any
 * file the run writes, whether directly, through `..` or through a symbolic link, and the check comes
 * before the first sample: a refused run measures nothing and leaves the folder as it was.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { checkOutputFile } from '../../metrics/store/output-file.ts';
import { isRunFile } from '../../metrics/store/run-folder.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import { fixture, tempDir } from '../support/in-process.ts';
import { mainInProcess, type MainResult } from '../support/main-in-process.ts';

describe('output files never overwrite a run', () => {
  const golden = fixture('golden-run');
  const run = tempDir('coldstart-sacred-');
  for (const file of ['samples.jsonl', 'meta.json']) copyFileSync(path.join(golden, file), path.join(run, file));
  const link = path.join(tempDir('coldstart-link-'), 'export.json');
  symlinkSync(path.join(run, 'samples.jsonl'), link);
  const fresh = path.join(tempDir('coldstart-fresh-'), 'run');
  const cases: { args: string[]; message: RegExp }[] = [
    { args: ['report', run, '--export-json', path.join(run, 'samples.jsonl')], message: /--export-json .* would overwrite samples\.jsonl/ },
    { args: ['report', run, '--export-json', path.join(run, 'meta.json')], message: /would overwrite meta\.json/ },
    { args: ['report', run, '--export-json', path.join(run, 'sub', '..', 'summary.md')], message: /would overwrite summary\.md/ },
    { args: ['report', run, '--export-json', link], message: /would overwrite samples\.jsonl of the run folder/ },
    { args: ['compare', run, run, '--out', path.join(run, 'samples.jsonl')], message: /--out .* would overwrite samples\.jsonl/ },
    {
      args: ['run', '--frameworks', 'node-http', '--routes', '1', '--samples', '1', '--export-json', path.join(run, 'samples.jsonl')],
      message: /would overwrite samples\.jsonl/,
    },
    {
      // the run's own folder does not exist yet: still checked before the first sample
      args: [
        'run',
        '--frameworks',
        'node-http',
        '--routes',
        '1',
        '--samples',
        '1',
        '--out',
        path.dirname(fresh),
        '--export-json',
        path.join(path.dirname(fresh), 'meta.json'),
      ],
      message: /would overwrite meta\.json/,
    },
  ];
  const results: MainResult[] = [];
  before(async () => {
    for (const c of cases) results.push(await mainInProcess(c.args));
  });

  cases.forEach((c, i) => {
    it(`${c.args[0]} … ${c.args.slice(-2).join(' ')}`, () => {
      const r = results[i]!;
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, c.message);
    });
  });

  it('left the run folder as it was, and the refused run measured nothing', () => {
    assert.deepEqual(readdirSync(run).sort(), ['meta.json', 'samples.jsonl']);
    for (const file of ['samples.jsonl', 'meta.json'])
      assert.ok(readFileSync(path.join(run, file)).equals(readFileSync(path.join(golden, file))));
    assert.deepEqual(readdirSync(path.dirname(fresh)), []);
  });

  it('another file in a run folder, or any file elsewhere, is fine', () => {
    assert.equal(checkOutputFile('--export-json', path.join(run, 'export.json')), path.join(run, 'export.json'));
    assert.throws(() => checkOutputFile('--out', path.join(run, 'chart-listen.svg')), UsageError);
    for (const name of ['samples.jsonl', 'meta.json', 'summary.csv', 'chart-phases.svg', '.lock', 'hyperfine.json', 'attribution.json'])
      assert.ok(isRunFile(name), name);
    assert.ok(!isRunFile('export.json'));
  });
});
