/**
 * Defaults are applied once, in DEFAULT_SPEC (core/run-spec.ts): no code downstream of the spec (the
 * domain, the planner, the pipeline, the samplers) applies a default to a spec field or to a cell's
 * dimension again. A new `spec.sampling.countSamples ?? 1`, `cell.memory || DEFAULT_MEMORY_MB` or
 * `function f(initCpus = 2)` there fails this test with its file and line.
 *
 * Not scanned: metrics/cli/ (where the flags become the spec), metrics/report/ and metrics/analyse/
 * (they read meta.json of old runs, whose absent fields have their documented meaning), metrics/cloud/
 * (lambda:package's own options, not a RunSpec).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { DIMENSIONS } from '../../metrics/core/dimensions.ts';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { findSpecDefaults, specFieldNames } from '../support/spec-defaults.ts';

const SCANNED = ['metrics/core', 'metrics/plan', 'metrics/pipeline', 'metrics/measure'];

/**
 * Files whose `??` on a dimension is not a spec default, each with why: what an absent field of an old
 * record (samples.jsonl) or file name means is the table's stored value, which never changes.
 */
const NOT_SPEC: Record<string, string> = {
  'metrics/core/cell.ts': "a record's absent dimension is the table's stored value (old samples.jsonl keep their keys)",
  'metrics/core/paths.ts': "a generated file's path without a shape or schema is the flat/small file's (old names keep their paths)",
  'metrics/core/run-spec.ts': 'DEFAULT_SPEC itself',
  'metrics/pipeline/results-index.ts': "reads the meta.json of published runs: an old record's absent field has its documented meaning",
  'metrics/measure/sampler/fake.ts': "`marks.init` is a Lambda sample's INIT mark (0 when absent), not the init dimension",
  'metrics/pipeline/verify.ts':
    "verify's options are not a RunSpec: --measure defaults to what the published run holds (timed, else counted)",
};

/** The spec's fields and the cell's dimensions; the groups and `source`/`kind` (never defaulted, common names) are not. */
function fieldNames(): Set<string> {
  const fields = specFieldNames(path.join(PROJECT_ROOT, 'metrics/core/run-spec.ts'));
  for (const name of Object.keys(DIMENSIONS)) fields.add(name);
  for (const group of ['source', 'cells', 'sampling', 'limits', 'cost', 'output']) fields.delete(group);
  return fields;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) return filesUnder(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

describe('spec defaults are applied once (DEFAULT_SPEC)', () => {
  const fields = fieldNames();

  it('knows the spec fields and the dimensions', () => {
    for (const name of ['memories', 'countSamples', 'firstHits', 'initCpus', 'cpuPeriodUs', 'memoryMB', 'lambdaRuntimes', 'memory'])
      assert.ok(fields.has(name), name);
  });

  it('no spec field or dimension is re-defaulted in metrics/core, plan, pipeline or measure', () => {
    const found = SCANNED.flatMap((dir) =>
      filesUnder(path.join(PROJECT_ROOT, dir)).flatMap((file) => {
        const relative = path.relative(PROJECT_ROOT, file).split(path.sep).join('/');
        return NOT_SPEC[relative] ? [] : findSpecDefaults(relative, readFileSync(file, 'utf8'), fields);
      }),
    );
    assert.deepEqual(
      found.map((f) => `${f.file}:${f.line}: ${f.text}`),
      [],
      'apply the default in DEFAULT_SPEC (core/run-spec.ts) and read the spec',
    );
  });

  it('finds every kind of re-applied default, and nothing else', () => {
    const planted = [
      'const a = options.countSamples ?? 1;',
      'const b = spec.cells.memories ?? [];',
      'const c = cell.memory || DEFAULT_MEMORY_MB;',
      'const d = cost.architectures?.[0] ?? DEFAULT_ARCHITECTURE;',
      "const e = (spec.targets ?? ['server']).length;",
      'const f = spec.sampling.warmup ?? DEFAULT_SPEC.sampling.warmup;',
      'function g(memoryMB: number, initCpus = 2) { return memoryMB * initCpus; }',
      'const { firstHits = 0 } = context;',
      "const h = levers.fileCaches ?? [lambda ? 'cold' : 'warm'];",
    ];
    const innocent = [
      'const i = options.region ?? DEFAULT_REGION;',
      'const j = spec.sampling.samples ?? computeSamples();',
      '// a comment: spec.countSamples ?? 1',
      "const k = 'spec.countSamples ?? 1';",
      'const l = reference?.files ?? new Map();',
    ];
    const text = [...planted, ...innocent].join('\n');
    const found = findSpecDefaults('planted.ts', text, fields).map((f) => f.line);
    assert.deepEqual(
      found,
      planted.map((_, i) => i + 1),
    );
  });
});
