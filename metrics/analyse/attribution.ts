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
import type { Attribution, ModuleLoad } from '../core/attribution.ts';
import type { CpuProfile, CpuProfileNode } from '../core/cpu-profile.ts';
import { OWNER, ownerOf, pathOf } from '../core/packages.ts';

const PSEUDO = new Map<string, string>([
  ['(program)', OWNER.program],
  ['(garbage collector)', OWNER.gc],
  ['(idle)', OWNER.idle],
]);
const INTERNAL = new Set<string>([OWNER.node, '']);
/** How many module loads an attribution keeps. */
export const MODULES_KEPT = 15;

/** A module's file as a reader knows it: from its package folder on, or its path relative to `appRoot`. */
function moduleName(url: string, appRoot: string | undefined): string {
  const file = pathOf(url);
  const at = file.lastIndexOf('/node_modules/');
  if (at >= 0) return file.slice(at + '/node_modules/'.length);
  if (appRoot && file.startsWith(`${appRoot}/`)) return file.slice(appRoot.length + 1);
  return file;
}

export interface AttributeOptions {
  coldstartFiles?: readonly string[];
  appRoot?: string;
  /** a bundle's frames mapped back to the file they came from (its source map), or undefined */
  originalFile?: (url: string, line: number, column: number) => string | undefined;
  /** the end of INIT on the profile's clock (µs, CLOCK_MONOTONIC): the self times up to it are kept apart too */
  initEndUs?: number;
}

/** The owners and module frames on a node's stack. */
interface Stack {
  owners: Set<string>;
  modules: Set<number>;
}

/** A profile's call tree, with each node's owner, the owner its self time counts for and its stack, each worked out once. */
class CallTree {
  readonly byId: Map<number, CpuProfileNode>;
  private readonly parent = new Map<number, number>();
  /** per node: the owner of its own frame */
  private readonly own = new Map<number, string>();
  /** per node: the owner its self time counts for */
  private readonly selfOwner = new Map<number, string>();
  private readonly stacks = new Map<number, Stack>();

  constructor(
    profile: CpuProfile,
    private readonly options: AttributeOptions,
  ) {
    this.byId = new Map(profile.nodes.map((n) => [n.id, n]));
    for (const node of profile.nodes) for (const child of node.children ?? []) this.parent.set(child, node.id);
    // the root's own frame is V8's `(root)`: never an owner
    for (const node of profile.nodes)
      if (node.callFrame.functionName === '(root)' && !this.parent.has(node.id)) this.own.set(node.id, '(root)');
  }

  ownerFor(id: number): string {
    let owner = this.own.get(id);
    if (owner === undefined) {
      const frame = this.byId.get(id)!.callFrame;
      const original = frame.url === '' ? undefined : this.options.originalFile?.(frame.url, frame.lineNumber, frame.columnNumber);
      owner = PSEUDO.get(frame.functionName) ?? ownerOf(original ?? frame.url, this.options.coldstartFiles);
      this.own.set(id, owner);
    }
    return owner;
  }

  chargedTo(id: number): string {
    const cached = this.selfOwner.get(id);
    if (cached !== undefined) return cached;
    const owner = this.ownerFor(id);
    let charged: string;
    // what runs on behalf of its caller: Node's internals, native frames, and coldstart's own hooks (the preload's listen wrapper)
    if (!INTERNAL.has(owner) && owner !== OWNER.coldstart) charged = owner;
    else {
      const up = this.parent.get(id);
      const above = up === undefined || this.ownerFor(up) === '(root)' ? undefined : this.chargedTo(up);
      // with no package or app above, it stays with coldstart's code when that is what ran, else with Node
      charged = above !== undefined && !INTERNAL.has(above) ? above : owner === OWNER.coldstart ? OWNER.coldstart : OWNER.node;
    }
    this.selfOwner.set(id, charged);
    return charged;
  }

  stackOf(id: number): Stack {
    let stack = this.stacks.get(id);
    if (!stack) {
      const up = this.parent.get(id);
      const above = up === undefined ? { owners: new Set<string>(), modules: new Set<number>() } : this.stackOf(up);
      stack = { owners: new Set(above.owners), modules: new Set(above.modules) };
      const owner = this.ownerFor(id);
      if (owner !== '' && owner !== '(root)') stack.owners.add(owner);
      const frame = this.byId.get(id)!.callFrame;
      if (frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0 && frame.url !== '' && owner !== OWNER.node) {
        stack.modules.add(id);
      }
      this.stacks.set(id, stack);
    }
    return stack;
  }
}

/** The sums over a profile's samples, in ms. */
interface Tally {
  profiled: number;
  count: number;
  self: Map<string, number>;
  inclusive: Map<string, number>;
  moduleTime: Map<number, number>;
  initProfiled: number;
  initSelf: Map<string, number>;
}

const add = <K>(map: Map<K, number>, key: K, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);

/** Every sample's time to its owners, its stack and (before `initEnd`) to INIT. */
function tally(profile: CpuProfile, tree: CallTree, initEnd: number | undefined): Tally {
  const t: Tally = {
    profiled: 0,
    count: 0,
    self: new Map(),
    inclusive: new Map(),
    moduleTime: new Map(),
    initProfiled: 0,
    initSelf: new Map(),
  };
  const count = (t.count = Math.min(profile.samples.length, profile.timeDeltas.length));
  // a sample stands for the time until the next one (the last: until the profile's end), as DevTools counts it
  const stamps: number[] = new Array<number>(count);
  for (let i = 0, at = profile.startTime; i < count; i++) stamps[i] = at += profile.timeDeltas[i]!;
  for (let i = 0; i < count; i++) {
    const id = profile.samples[i]!;
    const us = Math.max(0, (i + 1 < count ? stamps[i + 1]! : profile.endTime) - stamps[i]!);
    if (!tree.byId.has(id) || us === 0) continue;
    const ms = us / 1000;
    t.profiled += ms;
    const owner = tree.chargedTo(id);
    add(t.self, owner, ms);
    if (initEnd !== undefined && stamps[i]! < initEnd) {
      // the part of this sample's time before INIT ended
      const initMs = Math.min(us, initEnd - stamps[i]!) / 1000;
      t.initProfiled += initMs;
      add(t.initSelf, owner, initMs);
    }
    const stack = tree.stackOf(id);
    for (const o of stack.owners) add(t.inclusive, o, ms);
    for (const m of stack.modules) add(t.moduleTime, m, ms);
  }
  // a sample always counts for its own owner (a native frame's sample is charged up, not on the stack by itself)
  for (const [owner, ms] of t.self) t.inclusive.set(owner, Math.max(t.inclusive.get(owner) ?? 0, ms));
  return t;
}

/**
 * The slowest module loads, one entry per file: a module evaluated once has one top-level frame, but a
 * frame can appear under several parents.
 */
function moduleLoads(t: Tally, tree: CallTree, appRoot: string | undefined): ModuleLoad[] {
  const perFile = new Map<string, ModuleLoad>();
  for (const [id, ms] of t.moduleTime) {
    const file = moduleName(tree.byId.get(id)!.callFrame.url, appRoot);
    const entry = perFile.get(file) ?? { file, owner: tree.ownerFor(id), loadMs: 0 };
    entry.loadMs += ms;
    perFile.set(file, entry);
  }
  return [...perFile.values()].sort((a, b) => b.loadMs - a.loadMs || a.file.localeCompare(b.file)).slice(0, MODULES_KEPT);
}

/** Attribute a profile; `coldstartFiles` are coldstart's own preload and bootstrap, `appRoot` shortens the app's file names. */
export function attributeProfile(profile: CpuProfile, options: AttributeOptions = {}): Attribution {
  const tree = new CallTree(profile, options);
  // INIT: only when its end lies inside the profile (else the clocks disagree, or INIT ended before the profiler started)
  const { initEndUs } = options;
  const initEnd = initEndUs !== undefined && initEndUs > profile.startTime && initEndUs <= profile.endTime ? initEndUs : undefined;
  const t = tally(profile, tree, initEnd);
  // an owner on the stack but never at its top (the app's own module calling into express) still has its inclusive time
  const packages = [...new Set([...t.self.keys(), ...t.inclusive.keys()])]
    .map((name) => ({
      name,
      selfMs: t.self.get(name) ?? 0,
      inclusiveMs: t.inclusive.get(name) ?? 0,
      ...(initEnd !== undefined ? { initSelfMs: t.initSelf.get(name) ?? 0 } : {}),
    }))
    .sort((a, b) => b.selfMs - a.selfMs || a.name.localeCompare(b.name));
  const modules = moduleLoads(t, tree, options.appRoot);
  const init =
    initEnd === undefined ? {} : { init: { profiledMs: t.initProfiled, busyMs: t.initProfiled - (t.initSelf.get(OWNER.idle) ?? 0) } };
  return { profiledMs: t.profiled, busyMs: t.profiled - (t.self.get(OWNER.idle) ?? 0), samples: t.count, packages, modules, ...init };
}
