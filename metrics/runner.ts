/**
 * One sample: spawn a fresh process, read its COLDSTART line, ask its LAST route for an answer,
 * verify it, stop the process group. Every failure (spawn error, crash, hang, bad line, wrong
 * answer) becomes a failed sample with a one-line reason; nothing here throws for a bad server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  AFTER_FIRST_RESPONSE,
  CHILD_MARKS,
  PROTOCOL_PREFIX,
  PROTOCOL_VERSION,
  PROTOCOL_VERSIONS,
  type ChildMark,
} from '../generators/probe.ts';
import { isExpectedAnswer, PROBE_NAME, routePath } from '../generators/contract.ts';
import type { Contract } from '../generators/types.ts';
import type { Cell } from './cell.ts';
import { stopGroup, track } from './children.ts';
import type { CpuMarks, InvalidBodyCheck, Marks, SampleRecord } from './samples.ts';

export interface Launch {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface SampleRequest {
  cell: Cell;
  launch: Launch;
  contract: Contract;
  phase: SampleRecord['phase'];
  index: number;
  /** the whole sample (spawn to verified answer) must finish within this */
  timeoutMs: number;
  /** also send an invalid body after the timed answer and expect 4xx */
  checkInvalidBody: boolean;
}

/** How many bytes of stderr a failed sample keeps. */
const STDERR_TAIL = 2000;
/** Non-protocol stdout a child may print (banners) before it counts as garbage. */
const STDOUT_LIMIT = 1 << 20;

class SampleFailure extends Error {}

/** How long, once the answer is verified, the runner waits for the child's after-answer line. */
export const AFTER_LINE_WAIT_MS = 1000;

interface Ready {
  timeOrigin: number;
  marks: Record<ChildMark, number>;
  /** CPU ms at the marks the child reported (protocol v2); empty for v1 */
  cpu: CpuMarks;
  port: number;
  rss: number;
  heapUsed: number;
  runtime: string;
}

/** What the child reports once its first answer is written. */
export interface AfterLine {
  /** CPU ms (user + system) since the process started */
  cpu: number;
  rss: number | undefined;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * The ready line's optional `cpu` object: each mark may be missing, a present one must be a finite
 * non-negative number, never below an earlier present one (CPU time only grows).
 */
function parseReadyCpu(value: unknown): CpuMarks {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object') throw new SampleFailure('ready line has a "cpu" that is not an object');
  const cpu: CpuMarks = {};
  let previous = 0;
  for (const name of CHILD_MARKS) {
    const ms = (value as Record<string, unknown>)[name];
    if (ms === undefined) continue;
    if (!isFiniteNumber(ms) || ms < 0) throw new SampleFailure(`ready line has a bad CPU time at "${name}"`);
    if (ms < previous) throw new SampleFailure(`ready line CPU times are out of order at "${name}"`);
    cpu[name] = previous = ms;
  }
  return cpu;
}

/** Validate a COLDSTART line's JSON; throws SampleFailure with what is wrong. */
export function parseReadyLine(text: string): Ready {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SampleFailure(`malformed ${PROTOCOL_PREFIX.trim()} line: ${text.slice(0, 120)}`);
  }
  const v = value as Partial<Ready> & { v?: unknown; cpu?: unknown };
  if (v === null || typeof v !== 'object' || !(PROTOCOL_VERSIONS as readonly unknown[]).includes(v.v)) {
    throw new SampleFailure(`${PROTOCOL_PREFIX.trim()} line is not protocol v${PROTOCOL_VERSIONS.join(' or v')}: ${text.slice(0, 120)}`);
  }
  if (!isFiniteNumber(v.timeOrigin)) throw new SampleFailure('ready line has no timeOrigin');
  const marks = v.marks as Record<string, unknown> | undefined;
  let previous = 0;
  for (const name of CHILD_MARKS) {
    const mark = marks?.[name];
    if (!isFiniteNumber(mark)) throw new SampleFailure(`ready line has no "${name}" mark`);
    if (mark < previous) throw new SampleFailure(`ready line marks are out of order at "${name}"`);
    previous = mark;
  }
  if (typeof v.port !== 'number' || !Number.isInteger(v.port) || v.port < 1 || v.port > 65535) {
    throw new SampleFailure(`ready line has no valid port: ${String(v.port)}`);
  }
  if (typeof v.rss !== 'number' || typeof v.heapUsed !== 'number' || typeof v.runtime !== 'string') {
    throw new SampleFailure('ready line lacks rss, heapUsed or runtime');
  }
  return { ...(v as Ready), cpu: parseReadyCpu(v.cpu) };
}

/**
 * The after-answer line's JSON, or undefined when it is not one: a broken report of CPU time loses
 * that figure, never the sample.
 */
export function parseAfterLine(text: string): AfterLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v.v !== PROTOCOL_VERSION || v.after !== AFTER_FIRST_RESPONSE || !isFiniteNumber(v.cpu) || v.cpu < 0) return undefined;
  return { cpu: v.cpu, rss: isFiniteNumber(v.rss) ? v.rss : undefined };
}

interface Answer {
  status: number;
  body: string;
  /** runner clock (performance.now) when the whole answer had arrived */
  at: number;
}

function postJson(port: number, path: string, body: unknown, timeoutMs: number): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), connection: 'close' },
        timeout: Math.max(1, timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() }),
        );
        response.on('error', (error) => reject(new SampleFailure(`POST ${path}: ${error.message}`)));
      },
    );
    request.on('timeout', () => request.destroy(new SampleFailure(`POST ${path}: no answer in time`)));
    request.on('error', (error) => reject(error instanceof SampleFailure ? error : new SampleFailure(`POST ${path}: ${error.message}`)));
    request.end(payload);
  });
}

/** The most telling line of a crashed child's stderr: its error line, not node's (or Bun's) closing version line. */
export function telling(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^(Node\.js|Bun) v\d/.test(l));
  return lines.findLast((l) => /\b\w*(Error|Exception)\b|^error:/.test(l)) ?? lines.at(-1) ?? '';
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) + '…' : flat;
}

interface ChildOutput {
  /** the ready line, or a rejection on exit, spawn error, bad line or deadline */
  ready: Promise<Ready>;
  /** the after-answer line, once it came; undefined when none came within `ms` or the child exited */
  after(ms: number): Promise<AfterLine | undefined>;
}

/**
 * Read the child's stdout line by line: the first protocol line is the ready line; a later one is
 * the after-answer line (the first valid one counts, anything else there is ignored).
 */
function readOutput(child: ChildProcess, deadlineMs: number, stderrTail: () => string): ChildOutput {
  let buffered = '';
  let otherBytes = 0;
  let lastOther = '';
  let readySettled = false;
  let exited = false;
  let afterLine: AfterLine | undefined;
  const afterWaiters = new Set<() => void>();
  const wakeAfterWaiters = () => {
    for (const wake of afterWaiters) wake();
  };
  let resolveReady!: (ready: Ready) => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<Ready>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const settle = (error?: Error, value?: Ready) => {
    if (readySettled) return;
    readySettled = true;
    clearTimeout(timer);
    if (error) {
      child.stdout?.off('data', onData);
      rejectReady(error);
    } else resolveReady(value!);
  };
  const timer = setTimeout(() => {
    const seen = lastOther ? `; last stdout line: ${oneLine(lastOther, 120)}` : '';
    settle(new SampleFailure(`no ready line within ${Math.round(deadlineMs)} ms (hung or too slow)${seen}`));
  }, deadlineMs);
  const onLine = (line: string) => {
    if (readySettled) {
      if (afterLine || !line.startsWith(PROTOCOL_PREFIX)) return;
      afterLine = parseAfterLine(line.slice(PROTOCOL_PREFIX.length));
      if (afterLine) wakeAfterWaiters();
      return;
    }
    if (line.startsWith(PROTOCOL_PREFIX)) {
      try {
        settle(undefined, parseReadyLine(line.slice(PROTOCOL_PREFIX.length)));
      } catch (error) {
        settle(error as Error);
      }
      return;
    }
    otherBytes += line.length + 1;
    if (line.trim()) lastOther = line;
    if (otherBytes > STDOUT_LIMIT) settle(new SampleFailure(`printed over ${STDOUT_LIMIT} bytes of stdout without a ready line`));
  };
  const onData = (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).replace(/\r$/, '');
      buffered = buffered.slice(newline + 1);
      onLine(line);
    }
    // after the ready line only protocol lines matter: never hold a long line without a newline
    if (readySettled && buffered.length > STDOUT_LIMIT) buffered = '';
  };
  child.stdout?.on('data', onData);
  child.once('error', (error) => settle(new SampleFailure(`could not start: ${error.message}`)));
  child.once('exit', (code, signal) => {
    exited = true;
    wakeAfterWaiters();
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const tail = stderrTail();
    settle(new SampleFailure(`${how} before it was ready${tail.trim() ? `: ${oneLine(telling(tail))}` : ''}`));
  });
  const after = (ms: number) =>
    new Promise<AfterLine | undefined>((resolve) => {
      if (afterLine || exited) return resolve(afterLine);
      const done = () => {
        clearTimeout(wait);
        afterWaiters.delete(done);
        resolve(afterLine);
      };
      const wait = setTimeout(done, ms);
      afterWaiters.add(done);
    });
  return { ready, after };
}

async function checkInvalid(port: number, cell: Cell, contract: Contract, timeoutMs: number): Promise<InvalidBodyCheck> {
  const last = cell.routes - 1;
  try {
    const answer = await postJson(port, routePath(last), contract.invalidBody(last), timeoutMs);
    if (answer.status >= 400 && answer.status < 500) return { ok: true, status: answer.status };
    return { ok: false, status: answer.status, reason: `an invalid body got ${answer.status}, expected 4xx` };
  } catch (error) {
    return { ok: false, reason: `invalid body check: ${(error as Error).message}` };
  }
}

export async function runSample(request: SampleRequest): Promise<SampleRecord> {
  const { cell, launch, contract } = request;
  const at = new Date().toISOString();
  const spawnAt = performance.now();
  const spawnAbs = performance.timeOrigin + spawnAt;
  const deadline = spawnAt + request.timeoutMs;
  const remaining = () => Math.max(1, deadline - performance.now());

  let stderr = '';
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  child.stdout?.resume();

  const record: SampleRecord = { cell, phase: request.phase, index: request.index, ok: false, durationMs: 0, at };
  try {
    const output = readOutput(child, remaining(), () => stderr);
    const ready = await output.ready;
    const onTimeline = (childMs: number) => ready.timeOrigin + childMs - spawnAbs;
    const last = cell.routes - 1;
    const answer = await postJson(ready.port, routePath(last), contract.validBody(last, PROBE_NAME), remaining());
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body);
    } catch {
      parsed = undefined;
    }
    if (answer.status !== 200 || !isExpectedAnswer(parsed, last, PROBE_NAME)) {
      throw new SampleFailure(`wrong answer from POST ${routePath(last)}: ${answer.status} ${oneLine(answer.body, 160)}`);
    }
    const marks: Marks = {
      processStart: onTimeline(0),
      start: onTimeline(ready.marks.start),
      imported: onTimeline(ready.marks.imported),
      startup: onTimeline(ready.marks.startup),
      listen: onTimeline(ready.marks.listen),
      firstResponse: answer.at - spawnAt,
    };
    // the child's clock and ours must agree to within a few ms, or every mark is suspect
    if (marks.processStart < -5 || marks.listen > marks.firstResponse + 5) {
      throw new SampleFailure(`the child's clock disagrees with the runner's (process start at ${marks.processStart.toFixed(1)} ms)`);
    }
    const cpu: CpuMarks = { ...ready.cpu };
    const after = await output.after(Math.min(AFTER_LINE_WAIT_MS, remaining()));
    // CPU time only grows: an after-answer figure below the listen one is not a CPU time, so it is left out
    if (after && after.cpu >= (cpu.listen ?? 0)) cpu.firstResponse = after.cpu;
    Object.assign(record, { ok: true, marks, rss: ready.rss, heapUsed: ready.heapUsed, runtimeVersion: ready.runtime });
    if (Object.keys(cpu).length) record.cpu = cpu;
    if (request.checkInvalidBody) record.invalidBody = await checkInvalid(ready.port, cell, contract, remaining());
  } catch (error) {
    record.ok = false;
    record.error = error instanceof SampleFailure ? error.message : `runner error: ${(error as Error).message}`;
  } finally {
    await stopGroup(child);
    record.durationMs = performance.now() - spawnAt;
  }
  if (!record.ok && stderr.trim()) record.stderrTail = stderr.trim().slice(-STDERR_TAIL);
  return record;
}
