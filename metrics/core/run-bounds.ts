/**
 * Bounds on what one run writes before its first sample (plan/bounds.ts checks them; `--help` and
 * docs/guide/robustness.md state them): route counts per run, generated files, their bytes, and the
 * room left on the disk.
 */

/** At most this many route counts in one `--routes` (the default has 8). */
export const MAX_ROUTE_COUNTS = 64;
/**
 * At most this many package versions in one `--versions` (the flag repeated counts together): each is an
 * npm install into .versions/ and a cell of its own times every other lever; 10,000 were accepted and
 * installed one by one. `bisect` bisects more releases than this one at a time, about log2 of them.
 */
export const MAX_VERSIONS = 32;
/** At most this many generated files in one run (every framework at the default route counts: 88 files; on both targets 176). */
export const MAX_GENERATED_FILES = 2000;
/** At most this many bytes of generated files in one run (the default run's 88 files: about 22 MB; on both targets 43 MB). */
export const MAX_GENERATED_BYTES = 4 * 2 ** 30;
/** Room left on the disk of generated/ beyond what a run writes there, so a run never fills it to the last block. */
export const DISK_MARGIN_BYTES = 256 * 2 ** 20;

/** The bounds in one phrase, for `--help`. */
export const RUN_BOUNDS_TEXT = `a run generates at most ${MAX_GENERATED_FILES} files and 4 GB, and checks the disk's room first`;
