/**
 * The cold starts an import has read, held in columns of numbers outside the JS heap (typed arrays),
 * not as an object per record: a million of them take about 100 MB, and the garbage collector has
 * next to nothing of theirs to walk or to leave room for. Ordinal i is the i-th cold start read.
 *
 * A request id (a UUID, as Lambda writes it) is kept as its 16 bytes; any other id as its text. A
 * hash table of ordinals (open addressing, in an Int32Array) finds a request id read twice by the
 * same function.
 */
import { bytes, float64s, int32s, type Column } from '../core/column.ts';
import type { ReportSource, SourcedReport } from './report-lines.ts';

/** A growing list of ordinals. */
export type Ordinals = Column<Int32Array>;
export const ordinals = (): Ordinals => int32s();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Where the dashes of a UUID are, by the byte before which each stands. */
const DASHES = new Set([4, 6, 8, 10]);

/** FNV-1a over 32 bits. */
function hashOf(codes: ArrayLike<number>, seed: number): number {
  let hash = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < codes.length; i++) hash = Math.imul(hash ^ codes[i]!, 16777619) >>> 0;
  return hash;
}

function textCodes(text: string): number[] {
  return Array.from(text, (c) => c.codePointAt(0)!);
}

/** Request ids by ordinal, and the set of (function, id) pairs read. */
class RequestIds {
  /** 16 bytes per ordinal: the UUID, or zeros when the id is in `texts` */
  private readonly uuids = bytes();
  private readonly texts = new Map<number, string>();
  /** the function (its index) each ordinal belongs to */
  private readonly functions = int32s();
  /** open addressing: ordinal + 1 per slot, 0 empty */
  private table = new Int32Array(1 << 12);
  private count = 0;

  private hash(ordinal: number): number {
    const text = this.texts.get(ordinal);
    const seed = this.functions.at(ordinal);
    return text === undefined ? hashOf(this.uuids.view(ordinal * 16, ordinal * 16 + 16), seed) : hashOf(textCodes(text), seed + 1);
  }

  private same(a: number, b: number): boolean {
    if (this.functions.at(a) !== this.functions.at(b)) return false;
    const text = this.texts.get(a);
    if (text !== undefined || this.texts.has(b)) return text === this.texts.get(b);
    for (let i = 0; i < 16; i++) if (this.uuids.at(a * 16 + i) !== this.uuids.at(b * 16 + i)) return false;
    return true;
  }

  /**
   * Add the id of ordinal `ordinal` (the next one) of function `fn`; when that function read it
   * already, the earlier ordinal (and nothing is added).
   */
  add(ordinal: number, requestId: string, fn: number): number | undefined {
    const view = this.uuids.reserve(16);
    if (UUID.test(requestId)) {
      for (let i = 0, at = 0; i < 16; i++, at += DASHES.has(i) ? 3 : 2) view[i] = parseInt(requestId.slice(at, at + 2), 16);
    } else {
      // its own copy: a slice of a line would keep the whole chunk it was read in alive
      this.texts.set(ordinal, Buffer.from(requestId, 'utf8').toString('utf8'));
    }
    this.functions.push(fn);
    const mask = this.table.length - 1;
    let slot = this.hash(ordinal) & mask;
    for (let found = this.table[slot]!; found !== 0; found = this.table[slot]!) {
      if (this.same(found - 1, ordinal)) {
        this.drop(ordinal);
        return found - 1;
      }
      slot = (slot + 1) & mask;
    }
    this.table[slot] = ordinal + 1;
    if (++this.count * 2 > this.table.length) this.rehash();
    return undefined;
  }

  /** Undo the last add (a repeated id takes no ordinal). */
  private drop(ordinal: number): void {
    this.texts.delete(ordinal);
    this.uuids.length = ordinal * 16;
    this.functions.length = ordinal;
  }

  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (const entry of this.table) {
      if (entry === 0) continue;
      let slot = this.hash(entry - 1) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = entry;
    }
    this.table = table;
  }

  text(ordinal: number): string {
    const text = this.texts.get(ordinal);
    if (text !== undefined) return text;
    let id = '';
    for (let i = 0; i < 16; i++) {
      if (DASHES.has(i)) id += '-';
      id += this.uuids
        .at(ordinal * 16 + i)
        .toString(16)
        .padStart(2, '0');
    }
    return id;
  }
}

export class ColdStarts {
  private readonly init = float64s();
  private readonly duration = float64s();
  private readonly billed = float64s();
  private readonly maxMemory = float64s();
  /** when it was logged, ms since the epoch; NaN when the input did not say */
  private readonly time = float64s();
  /** the line (positive) or record (negative) of its file; 0 when neither */
  private readonly position = float64s();
  private readonly file = int32s();
  private readonly ids = new RequestIds();
  /** Status and Error Type, on the few that failed */
  private readonly failures = new Map<number, { status?: string; errorType?: string }>();
  private readonly files: string[] = [];
  private readonly fileIndex = new Map<string, number>();
  private readonly functionIndex = new Map<string, number>();

  get length(): number {
    return this.init.length;
  }

  private indexOf(map: Map<string, number>, key: string): number {
    let index = map.get(key);
    if (index === undefined) map.set(key, (index = map.size));
    return index;
  }

  /**
   * Add a cold start of function `functionName`: its new ordinal, or, when that function's request
   * id was read already, `{ repeated }` with the ordinal that first had it (nothing is added).
   */
  add(report: SourcedReport, initMs: number, functionName: string): number | { repeated: number } {
    const ordinal = this.length;
    const repeated = this.ids.add(ordinal, report.requestId, this.indexOf(this.functionIndex, functionName));
    if (repeated !== undefined) return { repeated };
    let file = this.fileIndex.get(report.source.file);
    if (file === undefined) {
      file = this.files.push(report.source.file) - 1;
      this.fileIndex.set(report.source.file, file);
    }
    this.init.push(initMs);
    this.duration.push(report.durationMs);
    this.billed.push(report.billedMs);
    this.maxMemory.push(report.maxMemoryUsedMB);
    this.time.push(report.timestamp === undefined ? NaN : Date.parse(report.timestamp));
    this.position.push(report.source.line ?? (report.source.record !== undefined ? -report.source.record : 0));
    this.file.push(file);
    if (report.status !== undefined || report.errorType !== undefined) {
      // its own copies of the texts: a slice of a line would keep the whole chunk it was read in alive
      const own = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
      this.failures.set(ordinal, {
        ...(report.status !== undefined ? { status: own(report.status) } : {}),
        ...(report.errorType !== undefined ? { errorType: own(report.errorType) } : {}),
      });
    }
    return ordinal;
  }

  /** When it was logged, ms since the epoch; NaN when the input did not say. */
  timeOf(ordinal: number): number {
    return this.time.at(ordinal);
  }

  source(ordinal: number): ReportSource {
    const position = this.position.at(ordinal);
    const file = this.files[this.file.at(ordinal)]!;
    return position > 0 ? { file, line: position } : position < 0 ? { file, record: -position } : { file };
  }

  /** The cold start as its report said it, at memory size `memorySizeMB` (its cell's). */
  report(ordinal: number, memorySizeMB: number): SourcedReport {
    const time = this.time.at(ordinal);
    return {
      requestId: this.ids.text(ordinal),
      durationMs: this.duration.at(ordinal),
      billedMs: this.billed.at(ordinal),
      memorySizeMB,
      maxMemoryUsedMB: this.maxMemory.at(ordinal),
      initMs: this.init.at(ordinal),
      ...this.failures.get(ordinal),
      ...(Number.isNaN(time) ? {} : { timestamp: new Date(time).toISOString() }),
      source: this.source(ordinal),
    };
  }
}
