/**
 * A growing typed array: numbers by the million (an import's cold starts, a cell's samples) held
 * outside the JS heap, 8 bytes or fewer each, instead of in objects or in arrays the garbage collector
 * walks and keeps room for.
 */
type Numbers = Float64Array | Int32Array | Uint8Array;

/** A growing typed array. */
export class Column<T extends Numbers> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (size: number) => T,
  ) {}

  push(value: number): number {
    if (this.length === this.data.length) this.grow();
    this.data[this.length] = value;
    return this.length++;
  }

  at(index: number): number {
    return this.data[index]!;
  }

  /** room for `count` more values, returned as a view to fill */
  reserve(count: number): T {
    while (this.length + count > this.data.length) this.grow();
    const view = this.data.subarray(this.length, this.length + count) as T;
    this.length += count;
    return view;
  }

  view(from: number, to: number): T {
    return this.data.subarray(from, to) as T;
  }

  /** The values as a plain array; the column is emptied (its memory let go as the array is made). */
  take(): number[] {
    const values = Array.from(this.data.subarray(0, this.length));
    this.data = this.make(0);
    this.length = 0;
    return values;
  }

  private grow(): void {
    const grown = this.make(Math.max(16, this.data.length * 2));
    grown.set(this.data);
    this.data = grown;
  }
}

export const float64s = () => new Column(new Float64Array(16), (n) => new Float64Array(n));
export const int32s = () => new Column(new Int32Array(16), (n) => new Int32Array(n));
export const bytes = () => new Column(new Uint8Array(256), (n) => new Uint8Array(n));
