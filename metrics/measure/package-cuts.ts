/**
 * `--count-packages`: a counted sample cut also where CommonJS loading enters and leaves an npm package
 * (generators/package-cuts.ts writes the preload that cuts and logs). Each cut is one callgrind dump, in
 * the order of the log; replaying the log over the dumps gives each package the instructions executed while
 * its loading was the innermost one running (its own: the packages it loads in turn count to themselves),
 * up to the last mark (the first answer). The work outside any package's loading (Node's start, the
 * app's own files, listening, the first request) counts to `(app)`, as do the app's own files a package
 * loads. The dumps between two marks are summed back into the later mark's dump, so the marks' counts are
 * those of a plain counted sample plus the cuts' own small work.
 */
import { OWNER, ownerOf } from '../core/packages.ts';

/** One event of the preload's log: a mark's own process.cpuUsage(), or a load entering a file of another package, or its return. */
export type CutEvent = readonly ['mark'] | readonly ['enter', string] | readonly ['leave'];

/** One callgrind dump as counting.ts reads it. */
export interface CutDump {
  readonly trigger: string;
  readonly instructions: number;
  readonly cycles?: number;
}

/** The preload's log (a JSON array of events), or why it is not one. */
export function parseCutLog(text: string): CutEvent[] | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "the package cuts' log is not JSON";
  }
  const ok = (e: unknown): e is CutEvent =>
    Array.isArray(e) &&
    ((e.length === 1 && (e[0] === 'mark' || e[0] === 'leave')) || (e.length === 2 && e[0] === 'enter' && typeof e[1] === 'string'));
  if (!Array.isArray(value) || !value.every(ok)) return "the package cuts' log is not a list of cut events";
  return value;
}

/** Each owner's own instructions to the last mark, and the dumps of the marks alone (the cuts between summed into them). */
export interface PackageCounts {
  readonly markDumps: CutDump[];
  /** owner (a package name, or `(app)`) → instructions, to the last mark */
  readonly packages: Record<string, number>;
}

/**
 * The dumps replayed with the log. `kinds` tells a dump written at a process.cpuUsage() call (`cut`: it takes the log's
 * next event) from the Lambda INIT cut (`init`: a mark with no event); any other dump is passed on as it is, for the
 * marks' check to refuse. A log that does not fit the dumps is a one-line reason.
 */
export function packageCounts(
  dumps: readonly CutDump[],
  events: readonly CutEvent[],
  kindOf: (dump: CutDump) => 'cut' | 'init' | 'other',
): PackageCounts | string {
  const cuts = dumps.filter((dump) => kindOf(dump) === 'cut').length;
  if (cuts !== events.length)
    return `the package cuts' log has ${events.length} events, callgrind wrote ${cuts} cuts: the code calls getrusage() itself`;
  const markDumps: CutDump[] = [];
  const own = new Map<string, number>();
  let atLastMark = new Map<string, number>();
  const stack: string[] = [OWNER.app];
  let carry = { instructions: 0, cycles: 0 };
  let next = 0;
  for (const dump of dumps) {
    const kind = kindOf(dump);
    if (kind === 'other') {
      markDumps.push(dump);
      continue;
    }
    const owner = stack.at(-1)!;
    own.set(owner, (own.get(owner) ?? 0) + dump.instructions);
    const event = kind === 'cut' ? events[next++]! : (['mark'] as const);
    if (event[0] === 'enter') stack.push(ownerOf(event[1]));
    else if (event[0] === 'leave') {
      if (stack.length < 2) return "the package cuts' log leaves a package it never entered";
      stack.pop();
    }
    if (event[0] !== 'mark') {
      carry = { instructions: carry.instructions + dump.instructions, cycles: carry.cycles + (dump.cycles ?? 0) };
      continue;
    }
    const cycles = dump.cycles === undefined ? {} : { cycles: dump.cycles + carry.cycles };
    markDumps.push({ trigger: dump.trigger, instructions: dump.instructions + carry.instructions, ...cycles });
    carry = { instructions: 0, cycles: 0 };
    atLastMark = new Map(own);
  }
  return { markDumps, packages: Object.fromEntries([...atLastMark].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}
