/**
 * The planted releases and options bisect's pipeline tests share (test/pipeline/bisect*.test.ts).
 */
import type { BisectResult } from '../../metrics/analyse/bisect.ts';
import type { BisectOptions } from '../../metrics/pipeline/bisect.ts';

/** Twenty releases, 2.0.0 … 2.3.4. */
export const RELEASES = Array.from({ length: 20 }, (_, i) => `2.${Math.floor(i / 5)}.${i % 5}`);

/** A planted count: releases from `culprit` on do 3 % more work; `skip` ones do not install. */
export function planted(candidates: readonly string[], culprit: string, skip: readonly string[] = []) {
  const at = candidates.indexOf(culprit);
  return (v: string): BisectResult =>
    skip.includes(v)
      ? { kind: 'skipped', reason: 'does not install: planted' }
      : {
          kind: 'measured',
          value: candidates.indexOf(v) >= at ? 1_030_000_000 + candidates.indexOf(v) : 1_000_000_000 + candidates.indexOf(v),
          phases: { boot: 100, import: candidates.indexOf(v) >= at ? 130 : 100 },
        };
}

export function options(dir: string, overrides: Partial<BisectOptions> = {}): BisectOptions {
  return {
    pkg: 'fake',
    good: RELEASES[0]!,
    bad: RELEASES[19]!,
    pre: false,
    step: 1,
    yes: false,
    threshold: 0.01,
    measure: 'instructions',
    cell: { kind: 'generated', framework: 'fastify', routes: 10, target: 'server' },
    from: undefined,
    dir,
    command: 'coldstart bisect (test)',
    ...overrides,
  };
}
