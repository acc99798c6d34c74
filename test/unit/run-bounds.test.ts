/**
 * Bounds on what a run writes before its first sample (issue 37, class 9): `--routes` with 20,000
 * values wrote 20,000 files (18 GB) into generated/. Each bound is a one-line usage error (exit 2)
 * before a file is written: route counts per run, generated files, their estimated bytes, and the
 * disk's free space (a fake statfs reading: no disk is filled).
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseRoutes, parseVersions } from '../../metrics/core/parse.ts';
import { UsageError } from '../../metrics/core/errors.ts';
import {
  DISK_MARGIN_BYTES,
  MAX_GENERATED_BYTES,
  MAX_GENERATED_FILES,
  MAX_ROUTE_COUNTS,
  MAX_VERSIONS,
} from '../../metrics/core/run-bounds.ts';
import {
  checkGeneratedBounds,
  checkOutputRoom,
  estimateBytes,
  ESTIMATE_AT,
  freeBytes,
  SAMPLE_LINE_BYTES,
  type PlannedFile,
} from '../../metrics/plan/bounds.ts';
import { GENERATED_DIR } from '../../generators/write.ts';
import { loadGenerators } from '../../generators/registry.ts';
import { tempDir } from '../support/in-process.ts';
import { mainInProcess } from '../support/main-in-process.ts';

function usage(run: () => void): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof UsageError, `a usage error, not ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/);
    return error.message;
  }
  assert.fail('accepted');
}

const files = (count: number, bytes: number, dir = '/nowhere'): PlannedFile[] =>
  Array.from({ length: count }, (_, i) => ({ file: path.join(dir, `${i}.js`), bytes }));

describe('route counts per run', () => {
  it(`${MAX_ROUTE_COUNTS} route counts pass, ${MAX_ROUTE_COUNTS + 1} are refused`, () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
    assert.equal(parseRoutes(list(MAX_ROUTE_COUNTS)).length, MAX_ROUTE_COUNTS);
    assert.equal(
      usage(() => parseRoutes(list(MAX_ROUTE_COUNTS + 1))),
      `--routes: ${MAX_ROUTE_COUNTS + 1} route counts, over the bound of ${MAX_ROUTE_COUNTS} a run: give fewer`,
    );
  });
  it('a repeated value counts once', () => {
    assert.deepEqual(parseRoutes(Array.from({ length: 500 }, () => '10').join(',')), [10]);
  });
  it('`generate --routes` with 20,000 values: exit 2, one line, no file written', async () => {
    const before = readdirSync(GENERATED_DIR).sort();
    const routes = Array.from({ length: 20_000 }, (_, i) => i + 1).join(',');
    const result = await mainInProcess(['generate', '--routes', routes]);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, `coldstart: --routes: 20000 route counts, over the bound of ${MAX_ROUTE_COUNTS} a run: give fewer\n`);
    assert.deepEqual(readdirSync(GENERATED_DIR).sort(), before);
  });
});

describe('package versions per run (issue 46, item 4b)', () => {
  const list = (n: number) => `ms@${Array.from({ length: n }, (_, i) => `2.0.${i}`).join(',')}`;
  it(`${MAX_VERSIONS} versions pass, ${MAX_VERSIONS + 1} are refused, the flag repeated counting together`, () => {
    assert.equal(parseVersions(list(MAX_VERSIONS)).length, MAX_VERSIONS);
    assert.equal(
      usage(() => parseVersions(list(MAX_VERSIONS + 1))),
      `--versions: ${MAX_VERSIONS + 1} versions, over the bound of ${MAX_VERSIONS} a run (each is installed): give fewer`,
    );
    const first = parseVersions(list(MAX_VERSIONS - 1));
    assert.match(
      usage(() => parseVersions('fastify@5.0.0,5.1.0', first)),
      new RegExp(`^--versions: ${MAX_VERSIONS + 1} versions`),
    );
  });
  it('`measure --versions` with 10,000 versions: exit 2, one line, before anything is installed', async () => {
    const dir = tempDir('coldstart-versions-bound-');
    writeFileSync(path.join(dir, 'server.js'), '');
    const result = await mainInProcess([
      'measure',
      path.join(dir, 'server.js'),
      '--versions',
      list(10_000),
      '--out',
      path.join(dir, 'out'),
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `coldstart: --versions: 10000 versions, over the bound of ${MAX_VERSIONS} a run (each is installed): give fewer\n`,
    );
    assert.deepEqual(readdirSync(dir), ['server.js']);
  });
});

describe('generated files, bytes and disk', () => {
  const plenty = () => 2 ** 50;
  it(`${MAX_GENERATED_FILES} files pass, one more is refused`, () => {
    checkGeneratedBounds(files(MAX_GENERATED_FILES, 1), '/g', plenty);
    assert.match(
      usage(() => checkGeneratedBounds(files(MAX_GENERATED_FILES + 1, 1), '/g', plenty)),
      new RegExp(`^this selection would generate ${MAX_GENERATED_FILES + 1} files, over the bound of ${MAX_GENERATED_FILES} a run`),
    );
  });
  it('bytes up to the bound pass, beyond it are refused', () => {
    checkGeneratedBounds(files(4, MAX_GENERATED_BYTES / 4), '/g', plenty);
    assert.match(
      usage(() => checkGeneratedBounds(files(4, MAX_GENERATED_BYTES / 4 + 1), '/g', plenty)),
      /^this selection would generate about 4\.0 GB of files, over the bound of 4\.0 GB a run/,
    );
  });
  it('the disk: what the files need plus the margin must be free', () => {
    const need = 10 * 2 ** 20;
    checkGeneratedBounds(files(1, need), '/g', () => need + DISK_MARGIN_BYTES);
    assert.equal(
      usage(() => checkGeneratedBounds(files(1, need), '/g', () => need + DISK_MARGIN_BYTES - 1)),
      'the disk of /g has 266.0 MB free; this selection needs about 10.0 MB of generated files and 256.0 MB to spare: ' +
        'free some space or select fewer --routes',
    );
  });
  it('a file already there counts only for the bytes it grows by', () => {
    const dir = tempDir('coldstart-run-bounds-');
    writeFileSync(path.join(dir, '0.js'), 'x'.repeat(1000));
    // 1,000 bytes there already, 1,000 planned: nothing more needed, even on a full disk
    checkGeneratedBounds(files(1, 1000, dir), dir, () => 0);
    assert.match(
      usage(() => checkGeneratedBounds(files(1, 1001, dir), dir, () => 0)),
      /needs about 0\.0 MB of generated files/,
    );
  });
  it('an unreadable statfs leaves the disk unchecked, the other bounds not', () => {
    checkGeneratedBounds(files(1, 1), '/g', () => undefined);
    assert.ok(freeBytes(tempDir('coldstart-run-bounds-'))! > 0);
  });
});

describe('the run folder’s disk', () => {
  it('holds every sample line (the report is not required up front: a disk that fills later is exit 4)', () => {
    const need = 1000 * SAMPLE_LINE_BYTES;
    checkOutputRoom('/r', 1000, () => need);
    assert.equal(
      usage(() => checkOutputRoom('/r', 1000, () => need - 1)),
      'the disk of /r has 2.0 MB free; 1000 samples need about 2.0 MB (and their report about 16.0 MB more): ' +
        'free some space or choose another --out',
    );
  });
});

describe('the estimate of a generated file', () => {
  it('is within 10 % of the real file at 10, 500 and 5,000 routes, for every server generator', async () => {
    for (const generator of await loadGenerators('server')) {
      if (generator.unsupported) continue;
      const bytes = async (routes: number) => Buffer.byteLength(await generator.generate({ routes, variant: 'validated' }), 'utf8');
      const sizes = [await bytes(ESTIMATE_AT[0]), await bytes(ESTIMATE_AT[1]), await bytes(ESTIMATE_AT[2])] as const;
      for (const routes of [10, 500, 5000]) {
        const real = await bytes(routes);
        const estimate = estimateBytes(sizes, routes);
        assert.ok(Math.abs(estimate - real) / real < 0.1, `${generator.name} at ${routes}: estimated ${estimate}, real ${real}`);
      }
    }
  });
});
