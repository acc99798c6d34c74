/**
 * The fake deps of the hidden --debug-mode and of the in-process pipeline tests, as hyperfine's
 * MockExecutor: the fake sampler (measure/sampler/fake.ts) and the fake cell source
 * (plan/fake-source.ts) in place of processes, and a machine that starts nothing: no valgrind
 * looked for, no cgroup made, no strace, no CPU loop run, a quiet load. What the command prints is
 * captured (tests) or passed on (--debug-mode). Everything else a run does (the run folder, the
 * plan, the rounds, meta.json, the report) is the real code.
 */
import { Writable } from 'node:stream';
import type { LocalCpuSpeed } from '../core/meta.ts';
import { summarizeLoad } from '../core/load.ts';
import { SampleFileCache } from '../measure/file-cache.ts';
import { resolveLimits } from '../measure/planned-run.ts';
import { pauseAt } from '../measure/debug-pause.ts';
import type { RunStep } from '../core/run-steps.ts';
import type { LimitsMechanism } from '../measure/limits/types.ts';
import { FakeSampler, type FakeSamplerOptions } from '../measure/sampler/fake.ts';
import { FAKE_APP_VERSION, fakeCellSource } from '../plan/fake-source.ts';
import { prepareAppCells } from '../plan/apps.ts';
import type { AppsSource, CellSpec } from '../core/run-spec.ts';
import type { PlannedCell } from '../plan/cells.ts';
import type { CellSource, Deps } from './ports.ts';
import { cellKey } from '../core/cell.ts';
import type { Build } from '../core/dimensions.ts';

/** What the fake deps say each build ships (bytes): no file is read. */
const FAKE_SHIPPED_BYTES: Record<Build, number> = { plain: 4_000_000, bundle: 900_000, 'bundle-min': 400_000, snapshot: 2_000_000 };

import { FakeHyperfine, type FakeHyperfineOptions } from '../measure/sampler/fake-hyperfine.ts';

export { FakeSampler, parseFakeScript, type FakeSamplerOptions } from '../measure/sampler/fake.ts';
export { FakeHyperfine } from '../measure/sampler/fake-hyperfine.ts';

/** A limits mechanism that makes no cgroup: the fake sampler never asks it for one. */
const FAKE_LIMITS: LimitsMechanism = {
  info: { kind: 'cgroup-v2', parents: {}, swapLimited: true, notes: ['fake: no cgroup is made (--debug-mode)'] },
  create: () => {
    throw new Error('the fake limits mechanism makes no cgroup: only the fake sampler runs with it');
  },
};

/** The CPU loop's figures of a machine as fast as Lambda's reference. */
const FAKE_CPU_SPEED: LocalCpuSpeed = { iterations: 1_000_000, cpuMs: [10, 10, 10] };

/** File lists that are never found: the fake sampler evicts and reads nothing. */
class FakeFileCache extends SampleFileCache {
  override prepare(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
}

/** A stream that keeps what is written to it. */
class TextSink extends Writable {
  text = '';
  constructor(private readonly echo?: (text: string) => void) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    const text = chunk.toString();
    this.text += text;
    this.echo?.(text);
    done();
  }
}

export interface FakeDepsOptions extends FakeSamplerOptions {
  /** the environment coldstart runs in (default this process's) */
  env?: NodeJS.ProcessEnv;
  /** pass what the command prints on to this process's stdout and stderr too (--debug-mode); tests keep it only */
  echo?: boolean;
  /** valgrind is absent: counted cells are refused as on a machine without it */
  noValgrind?: boolean;
  /** why this machine cannot limit memory sizes (as detectLimits says it); absent: it can */
  noLimits?: string;
  /** told each step of the run (the in-process fault suite); default: pause at `pauseAt` if set */
  step?: (step: RunStep) => void | Promise<void>;
  /** the fake hyperfine of `hyperfine` (its version, frameworks that fail) */
  hyperfine?: FakeHyperfineOptions;
}

export interface FakeDeps extends Deps {
  sampler: FakeSampler;
  hyperfine: FakeHyperfine;
  /** what the command printed on stdout, on stderr, and as progress */
  readonly out: string;
  readonly err: string;
  readonly progressText: string;
}

/** The user's apps planned for real (their runtimes resolved, bundles built); a version of a dependency installs nowhere. */
function fakeAppSource(source: AppsSource, cells: CellSpec): CellSource {
  return {
    prepare: (env, log, scratch) =>
      prepareAppCells(source, cells, env, log, { ...(scratch ? { scratch } : {}), installVersion: FAKE_APP_VERSION }),
  };
}

export function fakeDeps(options: FakeDepsOptions = {}): FakeDeps {
  const out = new TextSink(options.echo ? (text) => process.stdout.write(text) : undefined);
  const err = new TextSink(options.echo ? (text) => process.stderr.write(text) : undefined);
  const progress = new TextSink(options.echo ? (text) => process.stderr.write(text) : undefined);
  const sampler = new FakeSampler(options);
  const now = options.now ?? (() => new Date());
  return {
    env: options.env ?? process.env,
    sampler,
    hyperfine: new FakeHyperfine(options.hyperfine),
    // the user's apps are planned for real (their runtimes resolved); generated cells without any effect
    source: (spec) => (spec.source.kind === 'apps' ? fakeAppSource(spec.source, spec.cells) : fakeCellSource(spec.source, spec.cells)),
    stdout: (text) => out.write(text),
    stderr: (text) => err.write(text),
    progress,
    now,
    loadMonitor: () => {
      const at = now().toISOString();
      return { stop: () => summarizeLoad([{ at, load: [0.1, 0.1, 0.1] }], 2) };
    },
    countTools: () => (options.noValgrind ? undefined : { valgrind: 'valgrind', vgdb: 'vgdb' }),
    limits: (memories, limitOptions) =>
      resolveLimits(memories, limitOptions, () =>
        options.noLimits ? { ok: false, reason: options.noLimits } : { ok: true, mechanism: FAKE_LIMITS },
      ),
    cpuSpeed: () => FAKE_CPU_SPEED,
    fileCache: (cells: readonly PlannedCell[], scratch) =>
      cells.some((c) => c.launch && c.cell.fileCache === 'cold') ? new FakeFileCache(scratch, []) : undefined,
    attribute: () => Promise.resolve([]),
    // no file is read: a build's bytes are a fixed figure per build, so the answer table has sizes to rank
    shipped: (cells: readonly PlannedCell[]) =>
      Promise.resolve(
        Object.fromEntries(
          cells
            .filter((c) => c.launch)
            .map((c) => [cellKey(c.cell), { bytes: FAKE_SHIPPED_BYTES[c.cell.build], what: 'a fixed figure (fake deps)' }]),
        ),
      ),
    step: options.step ?? (options.pauseAt ? pauseAt(options.pauseAt) : undefined),
    get out() {
      return out.text;
    },
    get err() {
      return err.text;
    },
    get progressText() {
      return progress.text;
    },
  };
}
