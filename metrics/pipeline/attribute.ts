/**
 * `--attribute`: one unrecorded, profiled run per cell (measure/profile.ts), each profile attributed to
 * packages (analyse/attribution.ts) as soon as it is read, so no more than one profile is held at a time.
 */
import { attributeProfile } from '../analyse/attribution.ts';
import type { CellAttribution } from '../core/attribution.ts';
import type { PlannedCell } from '../plan/cells.ts';
import type { ResolvedRuntime } from '../plan/runtimes.ts';
import type { RunContext } from '../measure/planned-run.ts';
import { profileCells, type ProfiledCell } from '../measure/profile.ts';

/** A profiled cell with what its profile says (a failed run's reason stays last, as attribution.json has always had it). */
function attributed({ base, profile }: ProfiledCell): CellAttribution {
  if (!profile) return base;
  const { reason, ...rest } = base;
  return { ...rest, attribution: attributeProfile(profile.profile, profile.context), ...(reason === undefined ? {} : { reason }) };
}

/** Every cell that runs, profiled once and attributed, in order; stops early when the run is interrupted. */
export function attributeCells(
  cells: readonly PlannedCell[],
  context: RunContext,
  runtimes: ReadonlyMap<string, ResolvedRuntime>,
  interrupted: () => boolean,
  log: (line: string) => void,
): Promise<CellAttribution[]> {
  return profileCells(cells, context, runtimes, interrupted, log, attributed);
}
