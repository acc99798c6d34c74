/**
 * The publication protocol (docs/dev/publishing.md): a run whose folder is under results/published/
 * is meant to be quoted, so it starts only on a quiet machine. Before anything is measured, the 1-min
 * load average is read; above PUBLISH_MAX_LOAD_PER_CORE a core (1.5 on 2 cores) the run is refused
 * (exit 2, one line) unless --force-publish. During the run the load monitor samples the load as for
 * every run, and meta.json keeps both. Runs of counted cells only are exempt: instruction counts do
 * not move with the load.
 */
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { LoadSummary } from '../core/load.ts';
import type { RunSpec } from '../core/run-spec.ts';
import { measureKind } from '../core/kinds.ts';

/** The 1-min load average a core above which a run is not started into results/published/. */
export const PUBLISH_MAX_LOAD_PER_CORE = 0.75;
/** The folder whose runs are published. */
export const PUBLISHED_PARTS = ['results', 'published'] as const;

/** Whether `out` is a folder under a results/published/ folder (a run to publish). */
export function isPublishedOut(out: string | undefined): boolean {
  if (!out) return false;
  const parts = path.resolve(out).split(path.sep);
  // results/published/<name>/…: the run folder is below the published folder, not the folder itself
  return parts.some((part, i) => part === PUBLISHED_PARTS[0] && parts[i + 1] === PUBLISHED_PARTS[1] && i + 2 < parts.length);
}

/** Why a run is not started into results/published/ now, or undefined when it may start. */
export function publicationRefusal(spec: Pick<RunSpec, 'cells' | 'output'>, now: () => LoadSummary): string | undefined {
  if (!isPublishedOut(spec.output.out) || spec.output.forcePublish) return undefined;
  if (spec.cells.measures.every((m) => measureKind(m).counted)) return undefined;
  const load = now();
  const limit = PUBLISH_MAX_LOAD_PER_CORE * load.cores;
  const load1 = load.before.load1;
  if (load1 <= limit) return undefined;
  return (
    `--out ${spec.output.out}: a published run starts on a quiet machine, and the 1-min load is ${load1.toFixed(2)} on ` +
    `${load.cores} cores (above ${limit.toFixed(2)}, ${PUBLISH_MAX_LOAD_PER_CORE} a core); ` +
    'wait, or --force-publish (docs/dev/publishing.md)'
  );
}

/** Refuses (UsageError) a run into results/published/ on a busy machine. */
export function checkPublication(spec: Pick<RunSpec, 'cells' | 'output'>, loadMonitor: () => { stop(): LoadSummary }): void {
  const refusal = publicationRefusal(spec, () => loadMonitor().stop());
  if (refusal) throw new UsageError(refusal);
}
