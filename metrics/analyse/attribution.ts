/**
 * Where a cold start goes, by npm package: a V8 CPU profile (`node --cpu-prof`, the .cpuprofile
 * JSON) attributed to the package that owns each frame's file.
 *
 * Owners: `node_modules/<pkg>` or `node_modules/@scope/pkg` (the innermost node_modules in the
 * path), `(app)` for any other file (the user's own code, or a generated file), `(coldstart)` for
 * coldstart's own preload and bootstrap, `(node)` for Node's internals (`node:` URLs), and V8's
 * pseudo-frames `(program)`, `(gc)` and `(idle)`.
 *
 * - self: each sample counts for the owner of the code that ran. Node's internals and native frames
 *   (require, compile, file reads), and coldstart's preload hooks, run on behalf of the code that
 *   called them, so a sample whose frame is internal counts for the nearest frame up the stack that
 *   belongs to a package or the app; `(node)` keeps only what runs with none above it (the runtime's
 *   own start, and Node's ES module loader, which reads, links and compiles an ESM graph before any
 *   of it runs). The selves add up to the profiled time.
 * - inclusive: each sample counts once for every owner on its stack.
 * - module load: per file, the inclusive time of its top-level code (V8's anonymous function at
 *   line 0, column 0: the module itself), which includes the modules it requires.
 *
 * No npm package parses a .cpuprofile into these figures (the ones on the registry are profilers or
 * viewers), and the format is a small tree (nodes, samples, timeDeltas): so it is read here.
 */
import type { Attribution, ModuleLoad } from '../core/attribution-file.ts';

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** µs since the previous sample (the first: since startTime) */
  timeDeltas: number[];
}

export const OWNER = { app: '(app)', coldstart: '(coldstart)', node: '(node)', program: '(program)', gc: '(gc)', idle: '(idle)' } as const;
const PSEUDO = new Map<string, string>([
  ['(program)', OWNER.program],
  ['(garbage collector)', OWNER.gc],
  ['(idle)', OWNER.idle],
]);
const INTERNAL = new Set<string>([OWNER.node, '']);
/** How many module loads an attribution keeps. */
export const MODULES_KEPT = 15;

/** A file URL or path as a path (`file:///a/b.js` → `/a/b.js`); other URLs as they are. */
export function pathOf(url: string): string {
  if (!url.startsWith('file://')) return url;
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url.slice('file://'.length);
  }
}

/** The owner of a frame's script: a package name, (app), (coldstart), (node), or '' for a native frame. */
export function ownerOf(url: string, coldstartFiles: readonly string[] = []): string {
  if (url === '') return '';
  if (url.startsWith('node:') || !/^(file:|\/|[A-Za-z]:\\)/.test(url)) return OWNER.node;
  const file = pathOf(url);
  const parts = file.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at >= 0 && parts[at + 1]) {
    const first = parts[at + 1]!;
    return first.startsWith('@') && parts[at + 2] ? `${first}/${parts[at + 2]}` : first;
  }
  if (coldstartFiles.includes(file)) return OWNER.coldstart;
  return OWNER.app;
}

/** A module's file as a reader knows it: from its package folder on, or its path relative to `appRoot`. */
function moduleName(url: string, appRoot: string | undefined): string {
  const file = pathOf(url);
  const at = file.lastIndexOf('/node_modules/');
  if (at >= 0) return file.slice(at + '/node_modules/'.length);
  if (appRoot && file.startsWith(`${appRoot}/`)) return file.slice(appRoot.length + 1);
  return file;
}

/** Attribute a profile; `coldstartFiles` are coldstart's own preload and bootstrap, `appRoot` shortens the app's file names. */
export function attributeProfile(
  profile: CpuProfile,
  options: {
    coldstartFiles?: readonly string[];
    appRoot?: string;
    /** a bundle's frames mapped back to the file they came from (its source map), or undefined */
    originalFile?: (url: string, line: number, column: number) => string | undefined;
  } = {},
): Attribution {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // per node: the owner of its own frame, and the owner its self time counts for
  const own = new Map<number, string>();
  const selfOwner = new Map<number, string>();
  const stacks = new Map<number, { owners: Set<string>; modules: Set<number> }>(); // per node: the owners and module frames on its stack
  const ownerFor = (id: number): string => {
    let owner = own.get(id);
    if (owner === undefined) {
      const frame = byId.get(id)!.callFrame;
      const original = frame.url === '' ? undefined : options.originalFile?.(frame.url, frame.lineNumber, frame.columnNumber);
      owner = PSEUDO.get(frame.functionName) ?? ownerOf(original ?? frame.url, options.coldstartFiles);
      own.set(id, owner);
    }
    return owner;
  };
  // what runs on behalf of its caller: Node's internals, native frames, and coldstart's own hooks (the preload's listen wrapper)
  const passesOn = (owner: string) => INTERNAL.has(owner) || owner === OWNER.coldstart;
  const chargedTo = (id: number): string => {
    const cached = selfOwner.get(id);
    if (cached !== undefined) return cached;
    const owner = ownerFor(id);
    let charged: string;
    if (!passesOn(owner)) charged = owner;
    else {
      const up = parent.get(id);
      const above = up === undefined || ownerFor(up) === '(root)' ? undefined : chargedTo(up);
      // with no package or app above, it stays with coldstart's code when that is what ran, else with Node
      charged = above !== undefined && !INTERNAL.has(above) ? above : owner === OWNER.coldstart ? OWNER.coldstart : OWNER.node;
    }
    selfOwner.set(id, charged);
    return charged;
  };
  interface Stack {
    owners: Set<string>;
    modules: Set<number>;
  }
  const stackOf = (id: number): Stack => {
    let stack = stacks.get(id);
    if (!stack) {
      const up = parent.get(id);
      const above = up === undefined ? { owners: new Set<string>(), modules: new Set<number>() } : stackOf(up);
      stack = { owners: new Set(above.owners), modules: new Set(above.modules) };
      const owner = ownerFor(id);
      if (owner !== '' && owner !== '(root)') stack.owners.add(owner === OWNER.node ? OWNER.node : owner);
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0 && frame.url !== '' && owner !== OWNER.node) {
        stack.modules.add(id);
      }
      stacks.set(id, stack);
    }
    return stack;
  };
  // the root's own frame is V8's `(root)`: never an owner
  for (const node of profile.nodes) if (node.callFrame.functionName === '(root)' && !parent.has(node.id)) own.set(node.id, '(root)');

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const moduleTime = new Map<number, number>();
  let profiled = 0;
  const count = Math.min(profile.samples.length, profile.timeDeltas.length);
  // a sample stands for the time until the next one (the last: until the profile's end), as DevTools counts it
  const stamps: number[] = new Array<number>(count);
  for (let i = 0, t = profile.startTime; i < count; i++) stamps[i] = t += profile.timeDeltas[i]!;
  for (let i = 0; i < count; i++) {
    const id = profile.samples[i]!;
    const us = Math.max(0, (i + 1 < count ? stamps[i + 1]! : profile.endTime) - stamps[i]!);
    if (!byId.has(id) || us === 0) continue;
    const ms = us / 1000;
    profiled += ms;
    const owner = chargedTo(id);
    self.set(owner, (self.get(owner) ?? 0) + ms);
    const stack = stackOf(id);
    for (const o of stack.owners) inclusive.set(o, (inclusive.get(o) ?? 0) + ms);
    for (const m of stack.modules) moduleTime.set(m, (moduleTime.get(m) ?? 0) + ms);
  }
  // a sample always counts for its own owner (a native frame's sample is charged up, not on the stack by itself)
  for (const [owner, ms] of self) inclusive.set(owner, Math.max(inclusive.get(owner) ?? 0, ms));
  const idle = self.get(OWNER.idle) ?? 0;
  // an owner on the stack but never at its top (the app's own module calling into express) still has its inclusive time
  const packages = [...new Set([...self.keys(), ...inclusive.keys()])]
    .map((name) => ({ name, selfMs: self.get(name) ?? 0, inclusiveMs: inclusive.get(name) ?? 0 }))
    .sort((a, b) => b.selfMs - a.selfMs || a.name.localeCompare(b.name));
  // one entry per file: a module evaluated once has one top-level frame, but a frame can appear under several parents
  const perFile = new Map<string, ModuleLoad>();
  for (const [id, ms] of moduleTime) {
    const frame = byId.get(id)!.callFrame;
    const file = moduleName(frame.url, options.appRoot);
    const entry = perFile.get(file) ?? { file, owner: ownerFor(id), loadMs: 0 };
    entry.loadMs += ms;
    perFile.set(file, entry);
  }
  const modules = [...perFile.values()].sort((a, b) => b.loadMs - a.loadMs || a.file.localeCompare(b.file)).slice(0, MODULES_KEPT);
  return { profiledMs: profiled, busyMs: profiled - idle, samples: count, packages, modules };
}

/** Is this JSON a V8 CPU profile? */
export function isCpuProfile(value: unknown): value is CpuProfile {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.nodes) && Array.isArray(v.samples) && Array.isArray(v.timeDeltas) && typeof v.startTime === 'number';
}
