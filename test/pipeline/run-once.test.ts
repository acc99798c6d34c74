/**
 * The run pipeline in-process, with a stub sampler and stub cells (no child process): meta.json is
 * written before the first sample and completed, unchanged, at the end; the run folder's samples are
 * read once per run and once per `report`; an apps run records its apps and no generated selection.
 */
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, afterEach, beforeEach, describe, it, mock } from 'node:test';
import { defaultContract } from '../../generators/contract.ts';
import type { AppSpec } from '../../metrics/core/app.ts';
import { APP_SOURCE, makeCell, type Cell } from '../../metrics/core/cell.ts';
import type { RunMeta } from '../../metrics/core/meta.ts';
import { runSpec, type RunSpec, type Source } from '../../metrics/core/run-spec.ts';
import type { SampleRecord } from '../../metrics/core/samples.ts';
import type { PlannedCell, PreparedCells } from '../../metrics/plan/cells.ts';
import type { PlannedRun } from '../../metrics/plan/order.ts';
import type { ResolvedRuntime } from '../../metrics/plan/runtimes.ts';
import type { Deps } from '../../metrics/pipeline/ports.ts';
import { FakeHyperfine } from '../../metrics/pipeline/fake.ts';
import { reportPipeline } from '../../metrics/pipeline/report.ts';
import { exitCodeOf, runPipeline } from '../../metrics/pipeline/run.ts';

const NODE: ResolvedRuntime = {
  name: 'node',
  kind: 'node',
  command: '/stub/node',
  version: 'v22.0.0',
  source: 'stub',
  bundleTarget: 'node22',
  compileCacheUnsupported: undefined,
};

function plannedOf(cell: Cell, app?: AppSpec): PlannedCell {
  return {
    cell,
    launch: { command: NODE.command, file: '/stub/app.js', compileCache: 'off' },
    blocked: undefined,
    contract: defaultContract,
    validates: false,
    ...(app ? { app } : {}),
  };
}

function preparedOf(cells: Cell[], apps: AppSpec[] = []): PreparedCells {
  return {
    selected: [],
    skipped: new Map(),
    cells: cells.map((c) =>
      plannedOf(
        c,
        apps.find((a) => a.name === c.framework),
      ),
    ),
    levers: {
      cells,
      runtimes: new Map([['node', NODE]]),
      files: new Map(),
      blocked: new Map(),
    },
  };
}

/** A successful sample whose firstResponse is a function of the cell and the index (no process). */
function recordOf(run: PlannedRun): SampleRecord {
  const f = 10 * run.cell.routes + run.index;
  return {
    cell: run.cell,
    phase: run.phase,
    index: run.index,
    ok: true,
    marks: { processStart: 0.05 * f, start: 0.1 * f, imported: 0.3 * f, startup: 0.5 * f, listen: 0.9 * f, firstResponse: f },
    rss: 50e6,
    heapUsed: 10e6,
    runtimeVersion: 'node v22.0.0',
    durationMs: f + 5,
    at: '2026-01-01T00:00:00.000Z',
  };
}

function depsOf(prepared: PreparedCells, onSample: (run: PlannedRun) => void = () => undefined): Deps & { out: string[] } {
  const out: string[] = [];
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  return {
    out,
    env: { PATH: '/nowhere', HOME: '/nowhere' },
    sampler: {
      measure: (run) => {
        onSample(run);
        return Promise.resolve(recordOf(run));
      },
    },
    hyperfine: new FakeHyperfine(),
    source: () => ({ prepare: () => Promise.resolve(prepared) }),
    stdout: (text) => out.push(text),
    stderr: (text) => out.push(text),
    progress: new PassThrough().resume(),
    now: () => new Date((clock += 1000)),
    loadMonitor: () => ({ stop: () => ({ cores: 2, readings: 1, before: { load1: 0, load5: 0, load15: 0 } }) as never }),
    countTools: () => undefined,
    limits: () => undefined,
    cpuSpeed: () => undefined,
    fileCache: () => undefined,
    attribute: () => Promise.resolve([]),
    shipped: () => Promise.resolve({}),
  };
}

function spec(
  out: string,
  source: Source = {
    kind: 'generated',
    frameworks: ['fastify'],
    routes: [1, 10],
    variants: ['validated'],
    shapes: ['flat'],
    schemas: ['small'],
  },
): RunSpec {
  return runSpec({
    command: 'npm run metrics -- (in-process test)',
    source,
    cells: { node: process.execPath },
    sampling: { samples: 2, warmup: 1, timeoutMs: 1000 },
    output: { out },
  });
}

const readMetaFile = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8')) as RunMeta;

describe('the run pipeline, in-process', () => {
  let root: string;
  let samplesReads: number;
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'coldstart-pipeline-'));
    samplesReads = 0;
    // the spy: every opening of a samples.jsonl for reading counted (it is read line by line from there)
    const open = fs.openSync;
    mock.method(fs, 'openSync', (file: fs.PathLike, flags?: fs.OpenMode, ...rest: unknown[]) => {
      const reading = typeof flags === 'number' && (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR)) === 0;
      if (String(file).endsWith('samples.jsonl') && reading) samplesReads++;
      return (open as (...args: unknown[]) => unknown)(file, flags, ...rest);
    });
    syncBuiltinESMExports();
  });
  afterEach(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
    rmSync(root, { recursive: true, force: true });
  });
  after(() => mock.restoreAll());

  it('writes meta.json before the first sample and completes it at the end, the start unchanged', async () => {
    const out = path.join(root, 'run');
    const cells = [1, 10].map((routes) => makeCell({ framework: 'fastify', variant: 'validated', routes }));
    let atFirstSample: RunMeta | undefined;
    const deps = depsOf(preparedOf(cells), () => (atFirstSample ??= readMetaFile(out)));
    const result = await runPipeline(spec(out), deps);
    assert.ok(atFirstSample, 'meta.json was there when the first sample ran');
    assert.equal(atFirstSample.finishedAt, undefined);
    const end = readMetaFile(out);
    const { finishedAt, durationMs, samplesDurationMs, interrupted, load, ...start } = end;
    assert.deepEqual(start, atFirstSample);
    assert.equal(typeof finishedAt, 'string');
    assert.equal(durationMs, Date.parse(finishedAt!) - Date.parse(end.startedAt));
    assert.ok(samplesDurationMs! > 0);
    assert.equal(interrupted, false);
    assert.ok(load);
    assert.equal(result.recorded, 4);
    assert.equal(result.failed, 0);
    assert.equal(exitCodeOf(result, false), 0);
    assert.deepEqual(
      result.summaries.map((s) => s.cell.routes),
      [1, 10],
    );
  });

  it('reads the samples once per run and once per report', async () => {
    const out = path.join(root, 'run');
    const cells = [makeCell({ framework: 'fastify', variant: 'validated', routes: 1 })];
    const result = await runPipeline(spec(out), depsOf(preparedOf(cells)));
    assert.equal(samplesReads, 1, 'a run reads its samples.jsonl once (the report)');
    assert.equal(result.summaries.length, 1);
    samplesReads = 0;
    const exported = path.join(root, 'export.json');
    const written = await reportPipeline({ dir: out, exportJson: { file: exported, metric: 'firstResponse' } }, () => undefined);
    assert.ok(written.includes('summary.md'));
    assert.equal(samplesReads, 1, 'report and its --export-json read samples.jsonl once');
    assert.match(readFileSync(exported, 'utf8'), /"results"/);
  });

  it('an apps run records its apps (variables by name) and no generated selection', async () => {
    const out = path.join(root, 'run');
    const app: AppSpec = {
      name: 'shop',
      kind: 'server',
      file: '/stub/app.js',
      args: [],
      cwd: '/stub',
      request: { method: 'GET', path: '/' },
      expect: { status: 200 },
      port: 'auto',
      env: { SHOP_SECRET: 'hunter2' },
    };
    const cells = [makeCell({ framework: 'shop', variant: 'plain', routes: 1, source: APP_SOURCE })];
    await runPipeline(spec(out, { kind: 'apps', apps: [app] }), depsOf(preparedOf(cells, [app])));
    const meta = readMetaFile(out);
    assert.deepEqual(meta.spec.source, { kind: 'apps', apps: [{ ...app, env: ['SHOP_SECRET'] }] });
    assert.deepEqual(meta.frameworks, {});
    assert.doesNotMatch(readFileSync(path.join(out, 'meta.json'), 'utf8'), /hunter2/);
  });
});
