/**
 * The fault-injection matrix: each fault at each step of a run (metrics/core/run-steps.ts), what the
 * run must end with, and the checks of what it leaves. One table for both forms of the suite: the
 * in-process form in `npm test` (test/pipeline/faults.test.ts: the fake deps, the fault played at the
 * step in this process) and the full sweep (`npm run test:faults`, test/faults/sweep.ts: the real
 * command line under `--debug-mode pause-at=STEP`, the fault sent from outside: real signals, a pipe
 * closed by its reader, a disk filled up, SIGKILL). No child process here: both forms import it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RUN_STEPS, type RunStep } from '../../metrics/core/run-steps.ts';
import { readSamples } from '../../metrics/store/samples-file.ts';

export const FAULTS = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'closed-stdout',
  'closed-stderr',
  'full-stdout',
  'full-stderr',
  'eio-stdout',
  'eio-stderr',
  'full-disk',
  'SIGKILL',
] as const;
export type Fault = (typeof FAULTS)[number];

/** What each fault stands for, for the robustness guide and the sweep's table. */
export const FAULT_MEANING: Readonly<Record<Fault, string>> = {
  SIGINT: 'Ctrl-C',
  SIGTERM: 'a CI timeout, `kill`, a container stop',
  SIGHUP: 'a closed terminal or SSH session',
  'closed-stdout': 'the reader of stdout went away (`| head -1`)',
  'closed-stderr': 'the reader of stderr went away (`2>&1 | true`)',
  'full-stdout': 'stdout is a file on a disk that fills up at this step (`>/dev/full`, ENOSPC)',
  'full-stderr': 'stderr is a file on a disk that fills up at this step (`2>/dev/full`, ENOSPC)',
  'eio-stdout': 'stdout is a terminal that hangs up at this step, not the controlling one (EIO)',
  'eio-stderr': 'stderr is a terminal that hangs up at this step, not the controlling one (EIO)',
  'full-disk': 'the disk holding the run folder is full from this step on (ENOSPC)',
  SIGKILL: 'the runner killed outright (OOM killer, `kill -9`); the next run cleans up',
};

const SIGNAL_EXIT: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGPIPE: 141, SIGTERM: 143 };

/** The plan the suite runs: two cells of two samples, no warm-up, so the steps fall between samples. */
export const FAULT_RUN_ARGS = ['--frameworks', 'node-http', '--routes', '1,10', '--samples', '2', '--warmup', '0'] as const;
export const FAULT_RUN_SAMPLES = 4;

export interface Expected {
  /** the exit code, or 'killed' (SIGKILL: no code) */
  exit: number | 'killed';
  /** samples.jsonl's lines once the run ended */
  samples: number;
  /** summary.md is written */
  report: boolean;
  /** summary.md says the results are partial (undefined: not checked) */
  partial: boolean | undefined;
  /** the run folder is still locked (only a killed runner leaves its lock, for the next run to take over) */
  locked: boolean;
}

const AFTER_FIRST_SAMPLE: readonly RunStep[] = ['between', 'measured', 'report', 'done'];

/** Samples in samples.jsonl when the fault strikes at `step`: the first is appended at 'between', the rest by 'measured'. */
function samplesAt(step: RunStep): number {
  if (step === 'between') return 1;
  return AFTER_FIRST_SAMPLE.includes(step) ? FAULT_RUN_SAMPLES : 0;
}

/** What a run of FAULT_RUN_ARGS must end with when `fault` strikes at `step`. */
export function expectedOf(fault: Fault, step: RunStep): Expected {
  const samples = samplesAt(step);
  if (fault === 'SIGKILL') return { exit: 'killed', samples, report: step === 'done', partial: false, locked: true };
  if (fault === 'full-disk') {
    // every write from the step on fails: the run stops with exit 4, keeping the samples already written
    const done = step === 'done';
    return { exit: done ? 0 : 4, samples, report: done, partial: false, locked: false };
  }
  // a stream that cannot be written any more (closed, full, EIO) is the same interrupt as SIGPIPE
  const signal = /^(closed|full|eio)-std/.test(fault) ? 'SIGPIPE' : fault;
  // an interrupt stops the samples (the one in flight is not recorded) and reports what finished
  return {
    exit: SIGNAL_EXIT[signal]!,
    samples,
    report: samples > 0,
    partial: step === 'between' || step === 'measured',
    locked: false,
  };
}

/** Every case of the matrix, faults × steps. */
export function faultCases(faults: readonly Fault[] = FAULTS): { fault: Fault; step: RunStep }[] {
  return faults.flatMap((fault) => RUN_STEPS.map((step) => ({ fault, step })));
}

/** What is wrong with a run folder and a run's stderr, against `expected` (empty: nothing). */
export function violations(dir: string, stderr: string, expected: Expected): string[] {
  const found: string[] = [];
  const samplesFile = path.join(dir, 'samples.jsonl');
  let samples = 0;
  if (existsSync(samplesFile)) {
    try {
      samples = readSamples(samplesFile).length;
    } catch (error) {
      found.push(`samples.jsonl does not parse: ${(error as Error).message}`);
    }
  }
  if (samples !== expected.samples) found.push(`samples.jsonl holds ${samples} samples, expected ${expected.samples}`);
  const files = existsSync(dir) ? readdirSync(dir) : [];
  const temporary = files.filter((f) => f.includes('.tmp-'));
  if (temporary.length > 0) found.push(`temporary files left: ${temporary.join(', ')}`);
  if (files.includes('.coldstart.lock') !== expected.locked) found.push(`the lock is ${expected.locked ? 'gone' : 'left'}`);
  const summary = path.join(dir, 'summary.md');
  if (existsSync(summary) !== expected.report) found.push(expected.report ? 'no summary.md' : 'a summary.md was written');
  if (expected.report && existsSync(summary) && expected.partial !== undefined) {
    const partial = readFileSync(summary, 'utf8').includes('interrupted: partial results');
    if (partial !== expected.partial) found.push(`summary.md ${partial ? 'says' : 'does not say'} the results are partial`);
  }
  if (/internal error|\n\s+at /.test(stderr)) found.push(`a stack trace or an internal error on stderr: ${stderr.slice(-300)}`);
  return found;
}
