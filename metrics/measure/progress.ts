/**
 * Progress of a run on stderr: a cli-progress bar with done/total and an ETA on a terminal; one
 * plain line per finished cell (and per failed sample) otherwise, so logs stay readable, plus a
 * heartbeat line whenever nothing was printed for HEARTBEAT_MS (interleaved runs finish no cell
 * before their last round).
 */
import { measureKind } from '../core/kinds.ts';
import cliProgress from 'cli-progress';
import { median } from 'simple-statistics';
import { cellKey, cellLabel, type Cell } from '../core/cell.ts';
import { duration, ms } from '../core/format.ts';
import { oneLine as printable } from '../core/escape.ts';
import type { PlannedRun } from '../plan/order.ts';
import type { SampleRecord } from '../core/samples.ts';

/** Without a terminal, a line at least this often. */
export const HEARTBEAT_MS = 30_000;

export class Progress {
  private readonly bar: cliProgress.SingleBar | undefined;
  private readonly remainingByCell = new Map<string, number>();
  private readonly lastDuration = new Map<string, number>();
  private readonly firstResponses = new Map<string, number[]>();
  private readonly failures = new Map<string, number>();
  private readonly unsupported = new Set<string>();
  private done = 0;
  private payload = { etaText: 'estimating', label: '' };
  private lastLineAt = Date.now();
  private readonly heartbeat: NodeJS.Timeout | undefined;

  private readonly plan: PlannedRun[];

  constructor(
    plan: PlannedRun[],
    // `isTTY` is optional: @types/node says boolean, but a piped or redirected stderr has none
    private readonly stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
    tty = Boolean(stream.isTTY),
    private readonly heartbeatMs = HEARTBEAT_MS,
  ) {
    this.plan = [...plan];
    for (const run of plan) this.remainingByCell.set(cellKey(run.cell), (this.remainingByCell.get(cellKey(run.cell)) ?? 0) + 1);
    if (tty) {
      this.bar = new cliProgress.SingleBar(
        { stream, format: ' {bar} {value}/{total} runs | ETA {etaText} | {label}', hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(plan.length, 0, this.payload);
    } else {
      this.heartbeat = setInterval(() => this.beat(), Math.min(heartbeatMs, 5_000));
      this.heartbeat.unref();
    }
  }

  /** The heartbeat: done/total, the ETA and the run in flight, when nothing was printed for a while. */
  private beat(now = Date.now()): void {
    if (now - this.lastLineAt < this.heartbeatMs) return;
    this.line(`progress: ${this.done}/${this.plan.length} runs, ETA ${this.payload.etaText}, running ${this.payload.label || '…'}`);
  }

  /** ETA from each cell's last observed duration (cells differ by orders of magnitude, so a plain average misleads). */
  private eta(): number | undefined {
    if (this.lastDuration.size === 0) return undefined;
    const known = [...this.lastDuration.values()];
    const fallback = known.reduce((a, b) => a + b, 0) / known.length;
    let total = 0;
    for (const run of this.plan.slice(this.done)) total += this.lastDuration.get(cellKey(run.cell)) ?? fallback;
    return total;
  }

  /** More runs joined the plan (another round of `--samples auto`). */
  extend(runs: PlannedRun[], note?: string): void {
    this.plan.push(...runs);
    for (const run of runs) this.remainingByCell.set(cellKey(run.cell), (this.remainingByCell.get(cellKey(run.cell)) ?? 0) + 1);
    this.bar?.setTotal(this.plan.length);
    if (note) this.line(note);
  }

  starting(run: PlannedRun): void {
    this.payload.label = `${cellLabel(run.cell)} ${run.phase} ${run.index}`;
    this.bar?.update(this.done, this.payload);
  }

  finished(sample: SampleRecord): void {
    const key = cellKey(sample.cell);
    this.done++;
    this.lastDuration.set(key, sample.durationMs);
    // a counted cell's answer is its instructions (its wall time under valgrind is no figure of it)
    const counted = measureKind(sample.cell.measure).counted;
    const value = counted ? sample.instructions?.firstResponse : sample.marks?.firstResponse;
    if (sample.phase === 'sample' && sample.ok && value !== undefined) {
      this.firstResponses.set(key, [...(this.firstResponses.get(key) ?? []), value]);
    }
    // an unsupported cell (said once when the run starts) is not a failure
    if (sample.unsupported) this.unsupported.add(key);
    else if (!sample.ok) {
      if (sample.phase === 'sample') this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
      this.line(`FAILED ${cellLabel(sample.cell)} ${sample.phase} ${sample.index}: ${sample.error}`);
    }
    if (sample.invalidBody && !sample.invalidBody.ok) this.line(`FAILED ${cellLabel(sample.cell)}: ${sample.invalidBody.reason}`);
    const left = (this.remainingByCell.get(key) ?? 1) - 1;
    this.remainingByCell.set(key, left);
    if (left === 0) this.cellDone(sample.cell);
    const eta = this.eta();
    this.payload.etaText = eta === undefined ? 'estimating' : duration(eta);
    this.bar?.update(this.done, this.payload);
  }

  private cellDone(cell: Cell): void {
    if (this.bar) return;
    const key = cellKey(cell);
    const values = this.firstResponses.get(key) ?? [];
    if (this.unsupported.has(key)) {
      this.line(`done ${cellLabel(cell)}: unsupported [${this.done}/${this.plan.length}]`);
      return;
    }
    const middle = values.length ? median(values) : undefined;
    const figure = measureKind(cell.measure).counted
      ? `median instructions to firstResponse ${middle === undefined ? '–' : `${(middle / 1e6).toFixed(1)} M`}`
      : `median firstResponse ${ms(middle)} ms`;
    this.line(
      `done ${cellLabel(cell)}: ${values.length} ok, ${this.failures.get(key) ?? 0} failed, ${figure} [${this.done}/${this.plan.length}]`,
    );
  }

  /** One line to the terminal: whatever it carries from outside (a child's reason, a label) printable, never a sequence. */
  line(raw: string): void {
    const text = printable(raw);
    this.lastLineAt = Date.now();
    if (this.bar) {
      this.bar.stop();
      this.stream.write(text + '\n');
      this.bar.start(this.plan.length, this.done, this.payload);
    } else {
      this.stream.write(text + '\n');
    }
  }

  stop(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.bar?.stop();
  }
}
