/**
 * Every exit code of the command line, one per meaning, in one table: the README's table of exit codes is
 * written from it (`npm run docs:cli`, test/unit/exit-codes.test.ts fails when they drift), and every exit
 * of metrics/ and bin/ names one of its constants (the same test reads them with TypeScript's parser).
 * A bug is not a verdict: an unexpected error exits EXIT_BUG (70), and 1 is only compare's and verify's "no".
 */
export interface ExitCode {
  readonly code: number;
  /** what it means, as the README's table says it */
  readonly meaning: string;
}

export const EXIT_CODES = {
  OK: { code: 0, meaning: 'done; every sample answered (or `--allow-failures`)' },
  VERDICT: {
    code: 1,
    meaning:
      'a verdict against the change: `compare --fail-above` or `gate` found a regression, or `verify` found a published ratio ' +
      'that does not hold here (or could not measure it)',
  },
  USAGE: {
    code: 2,
    meaning:
      'a usage error: a bad option or value, a folder that holds a run or is in use by one, an `--out` on a kernel ' +
      'filesystem, a `meta.json` that is not an object or of a newer version; one line on stderr, nothing measured',
  },
  FAILED_SAMPLES: {
    code: 3,
    meaning: 'the run finished, but samples failed: their reasons are in summary.md (and samples.jsonl); `--allow-failures` makes it 0',
  },
  ENVIRONMENT: {
    code: 4,
    meaning:
      'the machine refused a file: a full disk, no permission, a folder where a file belongs; one line naming the ' +
      'file. Every finished sample stays in samples.jsonl; no file is left half-written. Also before anything runs, ' +
      'from the launcher: a TMPDIR that cannot be written, or an open-file limit under 128 (`ulimit -n`)',
  },
  AWS_ACCESS: {
    code: 5,
    meaning:
      '`lambda:run`, `lambda:clean`: AWS refused the credentials or a permission (access denied), or Lambda cannot ' +
      "assume the role (a created one still not, after `--role-wait`), or AWS refused a call otherwise (its error's " +
      'name and message in the line)',
  },
  AWS_QUOTA: { code: 6, meaning: '`lambda:run`, `lambda:clean`: an AWS quota or limit, or throttling that outlasted the retries' },
  AWS_NEVER_ACTIVE: {
    code: 7,
    meaning: '`lambda:run`: a function never became Active, or its update never went through, within `--ready-timeout`',
  },
  AWS_LEFT_BEHIND: {
    code: 8,
    meaning:
      '`lambda:run`, `lambda:clean`: resources could not be deleted; each is named, with the `lambda:clean` command ' +
      'that removes it (a log group: its `aws logs` command)',
  },
  AWS_SDK_MISSING: {
    code: 9,
    meaning:
      "`lambda:run`, `lambda:clean`: AWS's SDK, an optional dependency, is not installed; the line names the `npm install` that adds it",
  },
  UNDETERMINED: {
    code: 10,
    meaning:
      '`verify`: no claim failed, but some are undetermined (their interval crosses the margin): each line says about ' +
      "how many samples a cell would decide it (`--samples N`), or that the published run's own spread is too wide " +
      'for the margin',
  },
  NOTHING_MADE: {
    code: 11,
    meaning:
      'nothing to show: `lambda:package` could package no cell, or `metrics:hyperfine` measured no cell (each ' +
      'left-out cell is named with its reason)',
  },
  NO_VERDICT: { code: 12, meaning: '`bisect` reached no verdict: an end of its range was skipped (bisect.md says why)' },
  BUG: {
    code: 70,
    meaning:
      "an internal error, a bug: please report it with the line it printed (70 is sysexits' EX_SOFTWARE; it was 1, " +
      'which is now a verdict only)',
  },
  CLOSED_OUTPUT: {
    code: 141,
    meaning:
      'a stdout or stderr that is closed or cannot be written (a full disk, an I/O error): handled as an interrupt ' +
      "(128 + SIGPIPE; on Node 20 an I/O error on a terminal ends in Node's own abort, 134, after everything is " +
      'written)',
  },
  INTERRUPTED: {
    code: 130,
    meaning:
      'interrupted by Ctrl-C: the finished samples are kept and reported; SIGHUP (a closed terminal) exits 129 and ' +
      'SIGTERM 143 (128 + the signal), handled the same way',
  },
} as const satisfies Record<string, ExitCode>;

export const EXIT_OK = EXIT_CODES.OK.code;
export const EXIT_VERDICT = EXIT_CODES.VERDICT.code;
export const EXIT_USAGE = EXIT_CODES.USAGE.code;
export const EXIT_FAILED_SAMPLES = EXIT_CODES.FAILED_SAMPLES.code;
export const EXIT_ENVIRONMENT = EXIT_CODES.ENVIRONMENT.code;
export const EXIT_AWS_ACCESS = EXIT_CODES.AWS_ACCESS.code;
export const EXIT_AWS_QUOTA = EXIT_CODES.AWS_QUOTA.code;
export const EXIT_AWS_NEVER_ACTIVE = EXIT_CODES.AWS_NEVER_ACTIVE.code;
export const EXIT_AWS_LEFT_BEHIND = EXIT_CODES.AWS_LEFT_BEHIND.code;
export const EXIT_AWS_SDK_MISSING = EXIT_CODES.AWS_SDK_MISSING.code;
export const EXIT_UNDETERMINED = EXIT_CODES.UNDETERMINED.code;
export const EXIT_NOTHING_MADE = EXIT_CODES.NOTHING_MADE.code;
export const EXIT_NO_VERDICT = EXIT_CODES.NO_VERDICT.code;
export const EXIT_BUG = EXIT_CODES.BUG.code;
export const EXIT_CLOSED_OUTPUT = EXIT_CODES.CLOSED_OUTPUT.code;
export const EXIT_INTERRUPTED = EXIT_CODES.INTERRUPTED.code;

/** The README's table of exit codes, in the order of the codes. */
export function exitCodesMarkdown(): string {
  const rows = Object.values(EXIT_CODES)
    .slice()
    .sort((a, b) => a.code - b.code)
    .map((e) => `| ${e.code} | ${e.meaning} |`);
  return ['| exit code | meaning |', '| --: | --- |', ...rows].join('\n');
}
