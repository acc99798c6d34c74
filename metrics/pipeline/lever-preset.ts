/**
 * `measure --levers`: every lever value that applies to the user's apps, in place of the lever lists.
 * Every build (plain first: the others are compared to it), the compile cache off and warm (a
 * runtime without it reports its cells "unsupported", with the reason), and for servers the node
 * running coldstart plus each pinned Node line already installed in .runtimes/ (plan/runtimes.ts;
 * `--runtime node24` once installs one). Lambda handlers keep their Lambda line.
 */
import { existsSync } from 'node:fs';
import { BUILDS, COMPILE_CACHES, NODE_LINES, type RuntimeName } from '../core/dimensions.ts';
import type { CellSpec } from '../core/run-spec.ts';
import { installedBinary } from '../plan/runtimes.ts';

/** The pinned Node lines --levers takes when they are installed, oldest first. */
export const PRESET_NODE_LINES = NODE_LINES;

/** The lever lists of `--levers`; `root` is the runtimes folder (a test's own). */
export function leverPreset(root?: string): Pick<CellSpec, 'builds' | 'compileCaches' | 'runtimes'> {
  const installed = PRESET_NODE_LINES.filter((line) => existsSync(installedBinary(line, undefined, root)));
  const runtimes: RuntimeName[] = ['node', ...installed];
  return { builds: [...BUILDS], compileCaches: COMPILE_CACHES.filter((c) => c !== 'cold'), runtimes };
}
