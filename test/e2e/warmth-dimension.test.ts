/**
 * The warmth experiment (issue 48): a new dimension is one table row plus its behaviour, in at most 4
 * files. A copy of the project gets a throwaway `warmth` row (cold or hot) by exactly the edits
 * docs/dev/adding-a-target-or-dimension.md lists: the row in core/dimensions.ts, its flag in its
 * option group, its list in CellSpec; its behaviour (the 4th file) is not needed under the fake
 * sampler. The copy's CLI, run with --debug-mode (nothing started), then multiplies the cells by it,
 * gives them their keys and labels, a CSV column, a lever table, meta.json's list, its --help line,
 * and `verify` re-measures a cell at its warmth.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'coldstart-warmth-'));
const copy = path.join(dir, 'project');
after(() => rmSync(dir, { recursive: true, force: true }));

const ROW = `  warmth: dimension<'cold' | 'hot'>()({
    values: ['cold', 'hot'],
    stored: 'cold',
    cli: ['cold'],
    flags: [{ flag: '--warmth', arg: '<list>', group: 'levers', help: "comma list of cold, hot: the room's temperature" }],
    help: "the room's temperature",
    key: { at: 16, tagged: true },
    label: { at: 10 },
    sortByValues: true,
    lever: { rank: 11 },
    metaList: 'warmths',
    plan: { stage: 'lever', list: 'warmths' },
  }),
`;

/** The edits, file by file: each an anchor the new lines go after (or, for the row, before). */
const EDITS: { file: string; anchor: string; insert: string; before?: true }[] = [
  { file: 'metrics/core/dimensions.ts', anchor: '  source: dimension<Source>()({\n', insert: ROW, before: true },
  {
    file: 'metrics/cli/groups/levers.ts',
    anchor: "    .addOption(dimensionOption(DIMENSIONS.version, '--versions', parseVersions, on))",
    insert: "\n    .addOption(dimensionOption(DIMENSIONS.warmth, '--warmth', parseChoiceList('--warmth', DIMENSIONS.warmth.values), on))",
  },
  {
    file: 'metrics/cli/groups/levers.ts',
    anchor: '    ...(opts.versions ? { versions: opts.versions } : {}),\n',
    insert: '    ...(opts.warmth ? { warmths: opts.warmth } : {}),\n',
  },
  { file: 'metrics/core/run-spec.ts', anchor: '  versions: string[];\n', insert: "  warmths: ('cold' | 'hot')[];\n" },
  { file: 'metrics/core/run-spec.ts', anchor: "    versions: byRow('version'),\n", insert: "    warmths: byRow('warmth'),\n" },
];

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(copy, 'metrics', 'cli', 'main.ts'), ...args], {
    cwd: copy,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const keysOf = (run: string) =>
  readFileSync(path.join(run, 'samples.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { cell: Record<string, unknown> }).cell);

describe('a new dimension: one row, its flag and its list, in 3 files (the behaviour a 4th)', () => {
  before(() => {
    for (const part of ['metrics', 'generators', 'bin', 'package.json', 'tsconfig.json'])
      cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    for (const edit of EDITS) {
      const file = path.join(copy, edit.file);
      const text = readFileSync(file, 'utf8');
      assert.equal(text.split(edit.anchor).length, 2, `${edit.file}: the anchor is there once`);
      writeFileSync(file, text.replace(edit.anchor, edit.before ? edit.insert + edit.anchor : edit.anchor + edit.insert));
    }
    assert.equal(new Set(EDITS.map((e) => e.file)).size, 3);
  });

  const run = path.join(dir, 'run');
  const selection = ['-f', 'fastify', '-r', '1,10', '--samples', '2', '--warmup', '0'];

  it('run multiplies the cells by it: keys, labels, the CSV column, the lever table and meta.json', () => {
    const result = cli(['run', '--debug-mode', ...selection, '--warmth', 'cold,hot', '--out', run]);
    assert.equal(result.status, 0, result.stderr);
    const cells = keysOf(run);
    assert.deepEqual([...new Set(cells.map((c) => `${String(c.routes)}/${String(c.warmth)}`))].sort(), [
      '1/cold',
      '1/hot',
      '10/cold',
      '10/hot',
    ]);
    const rows: Record<string, string>[] = parse(readFileSync(path.join(run, 'summary.csv'), 'utf8'), { columns: true });
    assert.deepEqual(
      rows.map((r) => [r.routes, r.warmth, r.file]),
      [
        ['1', 'cold', '1-startup-fastify-routes.js'],
        ['1', 'hot', '1-startup-fastify-routes.js [warmth=hot]'],
        ['10', 'cold', '10-startup-fastify-routes.js'],
        ['10', 'hot', '10-startup-fastify-routes.js [warmth=hot]'],
      ],
    );
    const meta = JSON.parse(readFileSync(path.join(run, 'meta.json'), 'utf8')) as { spec: { cells: Record<string, unknown> } };
    assert.deepEqual(meta.spec.cells.warmths, ['cold', 'hot']);
    assert.match(readFileSync(path.join(run, 'levers.md'), 'utf8'), /## warmth: cold vs hot/);
  });

  it('a run that leaves it at its stored value is the run of before: no column, no meta.json list, the same keys', () => {
    const plain = path.join(dir, 'plain');
    assert.equal(cli(['run', '--debug-mode', ...selection, '--out', plain]).status, 0);
    assert.ok(!readFileSync(path.join(plain, 'summary.csv'), 'utf8').split('\n')[0]!.includes('warmth'));
    const meta = JSON.parse(readFileSync(path.join(plain, 'meta.json'), 'utf8')) as { spec: { cells: Record<string, unknown> } };
    assert.equal(meta.spec.cells.warmths, undefined);
  });

  it('--help lists the flag from its row, with its default, on run and measure', () => {
    for (const command of ['run', 'measure']) {
      const help = cli([command, '--help']).stdout.replace(/\s+/g, ' ');
      assert.match(help, /--warmth <list> comma list of cold, hot: the room's temperature \(default: cold\)/, command);
    }
  });

  it('verify re-measures a hot cell hot (a claim with the new dimension is measured)', () => {
    const hot = path.join(dir, 'hot');
    assert.equal(cli(['run', '--debug-mode', ...selection, '--warmth', 'hot', '--out', hot]).status, 0);
    const here = path.join(dir, 'verify');
    const result = cli(['verify', hot, '--debug-mode', '--samples', '2', '--out', here]);
    assert.doesNotMatch(result.stdout + result.stderr, /not measured/);
    const cells = keysOf(here);
    assert.ok(cells.length > 0);
    assert.deepEqual([...new Set(cells.map((c) => c.warmth))], ['hot']);
  });
});
