/**
 * attribution.json on disk (its types are core/attribution.ts): written after a run's profiled runs,
 * read by `report`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ATTRIBUTION_FILE, type AttributionFile } from '../core/attribution.ts';
import { parseCell } from '../core/cell.ts';
import { writeOwnedFile } from './files.ts';
import { readTextBounded } from './input-files.ts';
import { jsonFileText } from '../core/escape.ts';

export function writeAttribution(dir: string, file: AttributionFile): void {
  writeOwnedFile(dir, ATTRIBUTION_FILE, jsonFileText(file, 1) + '\n');
}

/** attribution.json is read whole up to this: a package table per cell is a few KiB. */
export const MAX_ATTRIBUTION_BYTES = 64 * 2 ** 20;

/**
 * The run folder's attribution.json, or undefined when it has none or it cannot be read (larger than
 * MAX_ATTRIBUTION_BYTES, a pipe, not JSON); cells that are not cells are left out.
 */
export function readAttribution(dir: string): AttributionFile | undefined {
  const file = path.join(dir, ATTRIBUTION_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readTextBounded(file, MAX_ATTRIBUTION_BYTES, "a run's attribution.json")) as Partial<AttributionFile>;
    if (value.version !== 1 || !Array.isArray(value.cells) || !value.method) return undefined;
    const cells = value.cells.flatMap((c) => {
      const cell = parseCell(c.cell);
      return cell ? [{ ...c, cell }] : [];
    });
    return { version: 1, method: value.method, cells };
  } catch {
    return undefined;
  }
}
