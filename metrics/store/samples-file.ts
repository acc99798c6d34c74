/**
 * samples.jsonl on disk: a run appends one record a line, and reports read it back line by line
 * (the record's type and its parsing are core/samples.ts).
 */
import { cellKey, cellLabel } from '../core/cell.ts';
import { UsageError } from '../core/errors.ts';
import { parseSampleRecord, SAMPLES_FILE, type SampleRecord } from '../core/samples.ts';
import { appendLine, checkOwnedInput } from './files.ts';
import { readLinesBounded } from './input-files.ts';

export function appendSample(file: string, sample: SampleRecord): void {
  appendLine(file, JSON.stringify(sample));
}

export class SamplesFileError extends Error {}

/**
 * A line of samples.jsonl longer than this is an error naming it: a record is under a few KiB (a
 * thousand first hits, a failure's reason cut to its first lines), so such a line is not one.
 */
export const MAX_SAMPLE_LINE = 4 * 2 ** 20;

/**
 * Call `each` with every sample of samples.jsonl in order, reading it line by line (memory bounded by
 * the line, not the file: a run folder may hold an import of a million cold starts). A line that is
 * not a sample is an error naming the line; only a torn last line (a run killed mid-write) is skipped.
 */
export function forEachSample(file: string, each: (sample: SampleRecord) => void): void {
  // a line that is not JSON is an error only once another line follows it
  let torn: number | undefined;
  const seen = new SeenSamples();
  try {
    checkOwnedInput(file);
    readLinesBounded(file, SAMPLES_FILE, { maxLine: MAX_SAMPLE_LINE, overlong: 'error' }, (line, number) => {
      if (torn !== undefined) throw new SamplesFileError(`${file}:${torn} is not JSON`);
      if (!line.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        torn = number;
        return;
      }
      const parsed = parseSampleRecord(value);
      if (!parsed.ok) throw new SamplesFileError(`${file}:${number} is not a sample record: ${parsed.reason}`);
      const { cell, phase, index } = parsed.record;
      if (!seen.add(cellKey(cell), phase, index)) {
        throw new SamplesFileError(`${file}:${number} repeats ${phase} ${index} of ${cellLabel(cell)}, already read: a sample counts once`);
      }
      each(parsed.record);
    });
  } catch (error) {
    if (error instanceof SamplesFileError) throw error;
    if (error instanceof UsageError) throw new SamplesFileError(error.message);
    throw new SamplesFileError(`cannot read ${file}`);
  }
}

/**
 * The (cell, phase, index) of every sample read, to refuse a line that repeats one (a copied line
 * would count twice: n 19 became 38). A bitset per cell and phase, by index: a million samples of one
 * cell take 125 KB, not a set of a million keys.
 */
class SeenSamples {
  private readonly bits = new Map<string, Uint8Array>();
  /** indices beyond the bitsets' reach (no writer makes them; a hostile file may): kept by value */
  private readonly far = new Set<string>();
  /** false when it was seen already */
  add(key: string, phase: string, index: number): boolean {
    const id = `${phase}\u0000${key}`;
    if (index >= SeenSamples.BITSET_LIMIT) {
      const far = `${id}\u0000${index}`;
      if (this.far.has(far)) return false;
      this.far.add(far);
      return true;
    }
    let bits = this.bits.get(id) ?? new Uint8Array(16);
    const byte = index >> 3;
    if (byte >= bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, bits.length * 2));
      grown.set(bits);
      bits = grown;
    }
    this.bits.set(id, bits);
    const bit = 1 << (index & 7);
    if (bits[byte]! & bit) return false;
    bits[byte]! |= bit;
    return true;
  }

  /** 2^24 indices: a bitset of 2 MB at most per cell and phase */
  private static readonly BITSET_LIMIT = 2 ** 24;
}

/** Read samples.jsonl whole into an array (small runs; a report reads it with forEachSample). */
export function readSamples(file: string): SampleRecord[] {
  const samples: SampleRecord[] = [];
  forEachSample(file, (sample) => samples.push(sample));
  return samples;
}
