/**
 * The contract test: it runs over every registered generator, so a new framework is covered by
 * adding its file. Syntax, N distinct literal routes, determinism, and a real run that answers its
 * last route and (validated) rejects a body without `name`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadGenerators, missingPackage } from '../../generators/registry.ts';
import { checkRouteCount, generatedRelativePath, writeGenerated } from '../../generators/write.ts';
import { PROBE } from '../../generators/probe.ts';
import { CPU_METRICS } from '../../metrics/core/samples.ts';
import { cellFor, runFile } from '../support/helpers.ts';
import { VARIANTS } from '../../metrics/core/dimensions.ts';

const generators = await loadGenerators();
const ROUTES = 3;

function numbersOf(source: string, pattern: RegExp): Set<number> {
  return new Set([...source.matchAll(pattern)].map((m) => Number(m[1])));
}

const expected = new Set(Array.from({ length: ROUTES }, (_, i) => i));

it('the registry has the floor and fastify, with unique names', () => {
  const names = generators.map((g) => g.name);
  assert.ok(names.includes('node-http') && names.includes('fastify'), names.join(','));
  assert.equal(new Set(names).size, names.length);
});

for (const generator of generators) {
  const missing = missingPackage(generator);
  describe(`generator ${generator.name}`, { skip: missing ? `${generator.name}: skipped (${missing} not installed)` : false }, () => {
    for (const variant of VARIANTS) {
      describe(variant, () => {
        it('writes N distinct literal routes, the shared probe, and valid syntax', async () => {
          const { file } = await writeGenerated(generator, ROUTES, variant);
          assert.ok(file.endsWith(generatedRelativePath(generator.name, variant, ROUTES)));
          const source = readFileSync(file, 'utf8');
          assert.ok(source.includes(PROBE), 'the probe text is embedded verbatim');
          assert.deepEqual(numbersOf(source, /route-(\d+)\b/g), expected, 'paths /route-0 … /route-(N-1)');
          assert.deepEqual(numbersOf(source, /\broute:\s*(\d+)/g), expected, 'each handler answers its own number literally');
          assert.ok(!/\bfor\s*\(|\.forEach\(/.test(source.split('/* end of probe */')[1] ?? ''), 'no loop registers the routes');
          const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
          assert.equal(check.status, 0, check.stderr);
        });

        it('is deterministic: the same inputs give the same bytes', async () => {
          const a = await generator.generate({ routes: ROUTES, variant });
          const b = await generator.generate({ routes: ROUTES, variant });
          assert.equal(a, b);
        });

        const validates = variant === 'validated' || Boolean(generator.alwaysValidates);
        it(`answers its last route${validates ? ' and rejects a body without name' : ''} when run`, async () => {
          const { file } = await writeGenerated(generator, ROUTES, variant);
          const sample = await runFile(file, {
            cell: cellFor(generator.name, variant, ROUTES),
            generator,
            timeoutMs: 60_000,
            checkInvalidBody: true,
          });
          assert.equal(sample.ok, true, `${sample.error}\n${sample.stderrTail ?? ''}`);
          const m = sample.marks!;
          assert.ok(m.start! <= m.imported! && m.imported! <= m.startup! && m.startup! <= m.listen! && m.listen! <= m.firstResponse);
          // the child's CPU time at every mark, the after-answer one included (the probe's second line)
          const cpu = sample.cpu ?? {};
          assert.ok(
            CPU_METRICS.every((name) => typeof cpu[name] === 'number'),
            `CPU times: ${JSON.stringify(cpu)}`,
          );
          const ordered = CPU_METRICS.every((name, i) => i === 0 || cpu[CPU_METRICS[i - 1]!]! <= cpu[name]!);
          assert.ok(ordered, `CPU times in order: ${JSON.stringify(cpu)}`);
          if (validates) assert.equal(sample.invalidBody?.ok, true, sample.invalidBody?.reason);
          else
            assert.ok(
              sample.invalidBody?.status !== undefined && sample.invalidBody.status < 400,
              `plain does not validate: got ${sample.invalidBody?.status}`,
            );
        });
      });
    }
  });
}

describe('route counts', () => {
  for (const bad of [0, -1, 1.5, 100_001, Number.NaN]) {
    it(`rejects ${bad}`, () => assert.throws(() => checkRouteCount(bad), /integer from 1 to 100000/));
  }
  it('accepts 1 and 100000', () => {
    assert.equal(checkRouteCount(1), 1);
    assert.equal(checkRouteCount(100_000), 100_000);
  });
});
