/**
 * This machine's CPU time for the CPU reference's workload (calibration/lambda-cpu-reference.ts) on a
 * runtime's node: the same loop of chained SHA-256 digests, in fresh processes, timed by the child
 * itself (process.cpuUsage). The script is a constant: nothing from outside is interpolated.
 */
import { spawnSync } from 'node:child_process';
import type { LocalCpuSpeed } from '../core/meta.ts';
import { childEnvironment } from './environment.ts';

/** Iterations per process (a quarter of the reference's million: about 0.3 s here), and processes per runtime. */
export const CPU_SPEED_ITERATIONS = 250_000;
export const CPU_SPEED_RUNS = 3;

const SCRIPT = `
const { createHash } = require('node:crypto');
const start = process.cpuUsage();
let data = Buffer.from('benchmark data for Lambda ARM vs x86 performance testing');
for (let i = 0; i < ${CPU_SPEED_ITERATIONS}; i++) data = createHash('sha256').update(data).digest();
const used = process.cpuUsage(start);
process.stdout.write(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, digest: data.toString('hex') }));
`;

/** Time the loop on `command` (a node binary); undefined when it cannot run there (the reason is not needed: no estimate then). */
export function measureCpuSpeed(command: string, runs = CPU_SPEED_RUNS): LocalCpuSpeed | undefined {
  const cpuMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const child = spawnSync(command, ['-e', SCRIPT], { env: childEnvironment().env, encoding: 'utf8', timeout: 60_000 });
    if (child.status !== 0) return undefined;
    try {
      const parsed = JSON.parse(child.stdout) as { cpuMs?: unknown };
      if (typeof parsed.cpuMs !== 'number' || !(parsed.cpuMs > 0)) return undefined;
      cpuMs.push(parsed.cpuMs);
    } catch {
      return undefined;
    }
  }
  return { iterations: CPU_SPEED_ITERATIONS, cpuMs };
}
