/**
 * What a run records of this machine's folders. Run folders are committed (results/published/), and no
 * path of the machine goes into a commit: meta.json records a path under the project's root as
 * `<project>/…`, under a .runtimes/ moved out of it (COLDSTART_RUNTIMES_DIR) as `<runtimes>/…`, and
 * under the folder `measure`'s apps were named from (--cwd, else where the command ran) as `<cwd>/…`,
 * and the Runtime Interface Client's folder in the machine's cache as `<ric>`.
 * The children still get the real paths; only the record changes. Other absolute paths are kept as they
 * are: Lambda's own /opt and /var in NODE_PATH, the cgroups under /sys. Readers take either form: run
 * folders written before this hold the absolute paths.
 */
import path from 'node:path';

export const PROJECT_PLACEHOLDER = '<project>';
export const RUNTIMES_PLACEHOLDER = '<runtimes>';
export const CWD_PLACEHOLDER = '<cwd>';
/** the Runtime Interface Client's folder in the machine's cache (plan/ric.ts), Lambda's /var/runtime */
const RIC_PLACEHOLDER = '<ric>';

/** The folders a record names by placeholder (absent or relative ones, and the filesystem's root, are not replaced). */
export interface RecordedRoots {
  project: string;
  runtimes?: string;
  cwd?: string;
  ric?: string;
}

/** A path starts after one of these (or at the text's start): a list's `:`, an option's `=` or space, a quote. */
const BEFORE = String.raw`(?<=^|[\s:;,=(\['"])`;
/** …and a folder's name ends before one of these (or at the end): `/srv/app` is not a root of `/srv/app2`. */
const AFTER = String.raw`(?=$|[/\\\s:;,)\]'"])`;

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The text with every path under a root written from its placeholder; the innermost root names a path
 * (a --cwd inside the project is `<cwd>`; on a tie, the project). Text without those roots is returned as is.
 */
export function pathRecorder(roots: RecordedRoots): (text: string) => string {
  const named: [string, string][] = [];
  const add = (dir: string | undefined, placeholder: string) => {
    if (!dir || !path.isAbsolute(dir)) return;
    const resolved = path.resolve(dir);
    if (resolved === path.parse(resolved).root || named.some(([d]) => d === resolved)) return;
    named.push([resolved, placeholder]);
  };
  add(roots.project, PROJECT_PLACEHOLDER);
  add(roots.runtimes, RUNTIMES_PLACEHOLDER);
  add(roots.cwd, CWD_PLACEHOLDER);
  add(roots.ric, RIC_PLACEHOLDER);
  if (!named.length) return (text) => text;
  // longest first: the regular expression takes the first alternative that matches
  const ordered = [...named].sort((a, b) => b[0].length - a[0].length);
  const placeholders = new Map(ordered);
  const pattern = new RegExp(`${BEFORE}(?:${ordered.map(([dir]) => escaped(dir)).join('|')})${AFTER}`, 'g');
  return (text) => text.replace(pattern, (dir) => placeholders.get(dir) ?? dir);
}

/** A JSON value with every string (keys too) written by `record`; other values as they are. */
export function recordedPaths<T>(value: T, record: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return record(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [record(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
