/**
 * samples.jsonl on disk: a run appends one record a line, and reports read it back line by line
 * (the record's type and its parsing are core/samples.ts).
 */
import { UsageError } from '../core/errors.ts';
import { parseSampleRecord, SAMPLES_FILE, type SampleRecord } from '../core/samples.ts';
import { appendLine, readLinesBounded } from './files.ts';

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
  try {
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
      each(parsed.record);
    });
  } catch (error) {
    if (error instanceof SamplesFileError) throw error;
    if (error instanceof UsageError) throw new SamplesFileError(error.message);
    throw new SamplesFileError(`cannot read ${file}`);
  }
}

/** Read samples.jsonl whole into an array (small runs; a report reads it with forEachSample). */
export function readSamples(file: string): SampleRecord[] {
  const samples: SampleRecord[] = [];
  forEachSample(file, (sample) => samples.push(sample));
  return samples;
}
