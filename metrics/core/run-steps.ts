/**
 * The steps of a run, in order: where the pipeline tells its deps how far it got (Deps.step). The
 * fault-injection suite puts a fault at each one (test/support/faults.ts); `--debug-mode
 * pause-at=STEP` stops a fake run there until a byte arrives on stdin, so a test outside the process
 * can inject a real fault (a signal, a closed pipe, a full disk) at exactly that point.
 */
export const RUN_STEPS = [
  /** the cells are planned and the run folder is locked; nothing is written yet */
  'planned',
  /** meta.json's start is written; no sample has run */
  'started',
  /** a sample is in flight (the first one): a fault now must not record it */
  'sample',
  /** a sample was appended to samples.jsonl (the first one) */
  'between',
  /** every sample is done; meta.json is not yet completed */
  'measured',
  /** the report is being written */
  'report',
  /** the report is written; the command has not yet printed its last line */
  'done',
] as const;

export type RunStep = (typeof RUN_STEPS)[number];

export function isRunStep(value: string): value is RunStep {
  return (RUN_STEPS as readonly string[]).includes(value);
}
