/**
 * `measure --levers`: every lever value that applies to the user's apps, in place of the lever lists.
 * Every build (plain first: the others are compared to it), the compile cache off and warm (a
 * runtime without it reports its cells "unsupported", with the reason), and for servers the node
 * running coldstart plus each pinned Node line already installed in .runtimes/ (plan/runtimes.ts;
 * `--runtime node24` once installs one). Lambda handlers keep their Lambda line.
 */
import { existsSync } from 'node:fs';
import { BUILDS, COMPILE_CACHES, NODE_LINES, type RuntimeName } from '../core/dimensions.ts';
import { UsageError } from '../core/errors.ts';
import type { CellSpec } from '../core/run-spec.ts';
import { installedBinary } from '../plan/runtimes.ts';

/** The pinned Node lines --levers takes when they are installed, oldest first. */
export const PRESET_NODE_LINES = NODE_LINES;

/** The levers `--levers <list>` may name: each one's lever list. */
export const LEVER_NAMES = ['build', 'cache', 'runtime'] as const;
type LeverName = (typeof LEVER_NAMES)[number];

/** What `--levers` and `--no-snapshot` ask for: the named levers (all without a list), the snapshot build or not. */
export interface LeverChoice {
  names: readonly LeverName[];
  snapshot: boolean;
}

/** `--levers` (true: every lever) or `--levers build,cache`, and `--no-snapshot`; an unknown name is a UsageError. */
export function leverChoice(value: string | true, snapshot = true): LeverChoice {
  if (value === true) return { names: LEVER_NAMES, snapshot };
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(LEVER_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw new UsageError(
      `--levers: ${unknown.length > 0 ? `unknown lever ${JSON.stringify(unknown[0])}` : 'an empty list'}; ` +
        `the levers are ${LEVER_NAMES.join(', ')} (e.g. --levers build,cache, or --levers alone for every one)`,
    );
  return { names: names as LeverName[], snapshot };
}

/** The lever lists of `--levers`; `root` is the runtimes folder (a test's own); `choice` the levers asked for (all by default). */
export function leverPreset(
  root?: string,
  choice: LeverChoice = { names: LEVER_NAMES, snapshot: true },
): Partial<Pick<CellSpec, 'builds' | 'compileCaches' | 'runtimes'>> {
  const installed = PRESET_NODE_LINES.filter((line) => existsSync(installedBinary(line, undefined, root)));
  const runtimes: RuntimeName[] = ['node', ...installed];
  const builds = BUILDS.filter((build) => choice.snapshot || build !== 'snapshot');
  return {
    ...(choice.names.includes('build') ? { builds } : {}),
    ...(choice.names.includes('cache') ? { compileCaches: COMPILE_CACHES.filter((c) => c !== 'cold') } : {}),
    ...(choice.names.includes('runtime') ? { runtimes } : {}),
  };
}
