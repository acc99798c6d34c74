/**
 * A calibration file given with --calibration (lambda:calibrate's, or one of the shipped format): read
 * and checked before a run measures anything, and named in meta.json by its path (relative to where the
 * user ran the command) and the sha256 of its bytes, so a later report uses the same one or says it does not.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { CalibrationMeta } from '../core/meta.ts';
import { readReferenceTable, ReferenceTableError, type ReferenceTable } from './lambda-reference.ts';

/** The file at `file` (relative to `base`), read and checked: a UsageError when missing or malformed. */
export function loadCalibrationFile(file: string, base: string): { table: ReferenceTable; meta: CalibrationMeta; absolute: string } {
  return loadCalibrationAt(path.resolve(base, file), calibrationName(file, base));
}

/** How meta.json names `file` given relative to `base`: its path under it, else as given. */
export function calibrationName(file: string, base: string): string {
  const relative = path.relative(base, path.resolve(base, file));
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative.split(path.sep).join('/');
}

/** The calibration file at `absolute`, named `file` in messages and meta.json. */
export function loadCalibrationAt(absolute: string, file: string): { table: ReferenceTable; meta: CalibrationMeta; absolute: string } {
  let table: ReferenceTable;
  try {
    table = readReferenceTable(absolute);
  } catch (error) {
    if (error instanceof ReferenceTableError) throw new UsageError(`--calibration: ${error.message.replaceAll(absolute, file)}`);
    throw error;
  }
  return {
    table,
    absolute,
    meta: {
      file,
      sha256: sha256Of(absolute),
      source: table.source,
      from: table.from,
      to: table.to,
    },
  };
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** What a report's estimates use: the calibration asked now, else the run's own (meta.json), with a note when they differ. */
export interface ChosenCalibration {
  /** the file the estimates use; undefined = the shipped table */
  file?: string;
  used?: CalibrationMeta;
  note?: string;
}

export function chooseCalibration(given: string | undefined, recorded: CalibrationMeta | undefined, base: string): ChosenCalibration {
  const short = (sha: string) => sha.slice(0, 12);
  if (given !== undefined) {
    const { meta, absolute } = loadCalibrationFile(given, base);
    const note =
      recorded && recorded.sha256 !== meta.sha256
        ? `these estimates use the calibration ${meta.file} (sha256 ${short(meta.sha256)}), not the run's ${recorded.file} ` +
          `(sha256 ${short(recorded.sha256)}), which made its estimates`
        : undefined;
    return { file: absolute, used: meta, ...(note ? { note } : {}) };
  }
  if (!recorded) return {};
  const absolute = path.resolve(base, recorded.file);
  const was = `the run's estimates were made with the calibration ${recorded.file} (sha256 ${short(recorded.sha256)})`;
  const instead = 'these use the shipped calibration: give --calibration FILE to use another';
  if (!existsSync(absolute)) return { note: `${was}, not found from here: ${instead}` };
  const sha256 = sha256Of(absolute);
  if (sha256 !== recorded.sha256) return { note: `${was}, and that file has changed since (sha256 ${short(sha256)} now): ${instead}` };
  return { file: absolute, used: recorded };
}
