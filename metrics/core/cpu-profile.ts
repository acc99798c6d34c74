/** V8's CPU profile (`node --cpu-prof`, the .cpuprofile JSON): a small tree of call frames, the samples and the time between them. */

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

/** Is this JSON a V8 CPU profile? */
export function isCpuProfile(value: unknown): value is CpuProfile {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.nodes) && Array.isArray(v.samples) && Array.isArray(v.timeDeltas) && typeof v.startTime === 'number';
}
