/** RunSpec: the defaults come from one object, and the rules refuse an option that has no effect in the selection. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppSpec } from '../../metrics/core/app.ts';
import { rowValues } from '../../metrics/core/cell-space.ts';
import { countedSamples, DEFAULT_SPEC, runSpec, specRefusal } from '../../metrics/core/run-spec.ts';

const handler: AppSpec = { name: 'h', kind: 'lambda', file: '/x/h.js', args: [], cwd: '/x', expect: { status: 200 }, port: 'auto' };
const server: AppSpec = { name: 's', kind: 'server', file: '/x/s.js', args: [], cwd: '/x', expect: { status: 200 }, port: 'auto' };

describe('runSpec', () => {
  it('fills every field from DEFAULT_SPEC and keeps what it is given', () => {
    const spec = runSpec({ sampling: { samples: 'auto', precision: { precision: 0.05, minSamples: 5, maxSamples: 30 } } });
    assert.equal(spec.sampling.samples, 'auto');
    assert.equal(spec.sampling.warmup, DEFAULT_SPEC.sampling.warmup);
    assert.equal(spec.sampling.precision.precision, 0.05);
    assert.deepEqual(spec.cells, DEFAULT_SPEC.cells);
  });

  it('resolves the target-dependent levers: a server starts as itself on warm files, a Lambda cell on its lines and cold files', () => {
    const cells = runSpec().cells;
    const levers = (target: string, lists: object = cells) =>
      Object.fromEntries(['runtime', 'build', 'compileCache', 'bootstrap', 'fileCache'].map((d) => [d, rowValues(d, { target }, lists)]));
    assert.deepEqual(levers('server'), {
      runtime: ['node'],
      build: ['plain'],
      compileCache: ['off'],
      bootstrap: ['probe'],
      fileCache: ['warm'],
    });
    assert.deepEqual(levers('lambda').bootstrap, ['ric']);
    assert.deepEqual(levers('lambda').fileCache, ['cold']);
    assert.deepEqual(levers('lambda', { ...cells, fileCaches: ['warm'] }).fileCache, ['warm']);
  });
});

describe('specRefusal', () => {
  const cases: { name: string; spec: Parameters<typeof runSpec>[0]; given: string[]; refused: RegExp | undefined }[] = [
    { name: '--seed without --order random', spec: {}, given: ['--seed'], refused: /^--seed does nothing without --order random/ },
    { name: '--seed with --order random', spec: { sampling: { order: 'random' } }, given: ['--seed'], refused: undefined },
    {
      name: 'Lambda options with no Lambda cell',
      spec: {},
      given: ['--lambda-runtime', '--no-lambda-reference'],
      refused: /^--lambda-runtime, --no-lambda-reference do nothing without a Lambda cell/,
    },
    {
      name: 'Lambda options with a Lambda cell',
      spec: { cells: { targets: ['lambda'] } },
      given: ['--lambda-runtime'],
      refused: undefined,
    },
    {
      name: '--count-samples without counted cells',
      spec: {},
      given: ['--count-samples'],
      refused: /^--count-samples does nothing without a counted cell/,
    },
    {
      name: '--warmup with counted cells only',
      spec: { cells: { measures: ['instructions'] } },
      given: ['--warmup'],
      refused: /^--warmup does nothing without a timed cell/,
    },
    {
      name: '--event with --entry only',
      spec: { source: { kind: 'apps', apps: [server] } },
      given: ['--event'],
      refused: /^--event does nothing without --handler/,
    },
    {
      name: '--request with --handler only',
      spec: { source: { kind: 'apps', apps: [handler] } },
      given: ['--request', '--port'],
      refused: /^--request, --port do nothing without --entry/,
    },
    {
      name: '--request with both kinds',
      spec: { source: { kind: 'apps', apps: [server, handler] } },
      given: ['--request', '--event'],
      refused: undefined,
    },
    {
      name: '--first-hits at one route',
      spec: {
        source: {
          ...(DEFAULT_SPEC.source as object),
          kind: 'generated',
          frameworks: 'all',
          routes: [1],
          variants: ['plain'],
          shapes: ['flat'],
          schemas: ['small'],
        },
      },
      given: ['--first-hits'],
      refused: /^--first-hits does nothing/,
    },
    { name: '--node with bun only', spec: { cells: { runtimes: ['bun'] } }, given: ['--node'], refused: /^--node does nothing/ },
    {
      name: 'every Lambda cell unsupported',
      spec: { cells: { targets: ['lambda'], lambdaRuntimes: ['node'], bootstraps: ['ric'] } },
      given: [],
      refused: /^every cell would be unsupported.*Runtime Interface Client/,
    },
    {
      name: 'node with probe runs',
      spec: { cells: { targets: ['lambda'], lambdaRuntimes: ['node'], bootstraps: ['probe'] } },
      given: [],
      refused: undefined,
    },
    // Lambda Web Functions: fixed caps and runtime line, and the only cells the Web Functions rates price
    {
      name: 'Web Functions rates without a lambda-web cell',
      spec: {},
      given: ['--price-file'],
      refused: /^--price-file does nothing without a Lambda Web Functions cell \(--target lambda-web\)/,
    },
    {
      name: 'Web Functions rates with a lambda-web cell',
      spec: { cells: { targets: ['lambda-web'] } },
      given: ['--web-cpu-price'],
      refused: undefined,
    },
    {
      name: '--lambda-memory with lambda-web cells only',
      spec: { cells: { targets: ['lambda-web'], memories: [512] } },
      given: ['--lambda-memory'],
      refused: /^--lambda-memory does nothing without a cell with a memory size \(a Lambda Web Function has its fixed 2 vCPUs and 2 GB\)/,
    },
    {
      name: '--lambda-memory with a server beside the Web Functions',
      spec: { cells: { targets: ['server', 'lambda-web'], memories: [512] } },
      given: ['--lambda-memory'],
      refused: undefined,
    },
    {
      name: '--runtime with lambda-web cells only',
      spec: { cells: { targets: ['lambda-web'] } },
      given: ['--runtime'],
      refused: /^--runtime does nothing without a server cell .*Web Functions on nodejs24\.x/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const refusal = specRefusal(runSpec(c.spec), new Set(c.given));
      if (c.refused) assert.match(refusal ?? '', c.refused);
      else assert.equal(refusal, undefined);
    });
  }
});

describe('--samples with counted cells only', () => {
  const counted = runSpec({ cells: { measures: ['instructions'] }, sampling: { samples: 3 } });
  it('is their count when --count-samples is not given', () => {
    const given = new Set(['--samples']);
    assert.equal(specRefusal(counted, given), undefined);
    assert.equal(countedSamples(counted, given).sampling.countSamples, 3);
  });
  it('is refused beside --count-samples, and as auto', () => {
    assert.match(specRefusal(counted, new Set(['--samples', '--count-samples'])) ?? '', /^--samples does nothing without a timed cell/);
    const auto = runSpec({ cells: { measures: ['instructions'] }, sampling: { samples: 'auto' } });
    assert.match(specRefusal(auto, new Set(['--samples'])) ?? '', /^--samples does nothing/);
  });
  it('leaves a run with timed cells as it is', () => {
    const mixed = runSpec({ cells: { measures: ['time', 'instructions'] }, sampling: { samples: 3 } });
    assert.equal(countedSamples(mixed, new Set(['--samples'])).sampling.countSamples, DEFAULT_SPEC.sampling.countSamples);
  });
});
