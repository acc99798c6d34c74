/** `report DIR`: rebuild every artefact of a run folder from its samples.jsonl (and meta.json), reading the run once. */
import path from 'node:path';
import { storedCost } from '../analyse/cost.ts';
import type { MetaCost } from '../core/meta-spec.ts';
import { assertNotHeld } from '../measure/run-lock.ts';
import { writeReport } from '../report/write.ts';
import { writeExport, type ExportJson } from './export.ts';

export interface ReportSpec {
  dir: string;
  /** cost flags given now (in the run spec's terms); they override what the run stored */
  cost?: MetaCost;
  /** --phases-at */
  phasesAt?: number | undefined;
  /** --export-json, from the report's own summaries */
  exportJson?: ExportJson;
  /** --calibration: the calibration table the estimates use instead of the shipped one */
  calibrationFile?: string;
}

/** Writes the report (and the export), returning the files written; `warn` gets the outlier lines. */
export async function reportPipeline(spec: ReportSpec, warn: (line: string) => void): Promise<string[]> {
  const dir = path.resolve(spec.dir);
  // a run still writing the folder would overwrite (or be overwritten by) this report
  assertNotHeld(dir);
  const { written, context } = await writeReport(dir, {
    ...(spec.cost ? { cost: storedCost(spec.cost) } : {}),
    ...(spec.phasesAt !== undefined ? { phasesAt: spec.phasesAt } : {}),
    ...(spec.calibrationFile !== undefined ? { calibrationFile: spec.calibrationFile } : {}),
    warn,
  });
  writeExport(spec.exportJson, context.summaries);
  return written;
}
