/**
 * The fake hyperfine of the pipeline tests, as the fake sampler is for `run`: it spawns nothing and
 * answers each benchmark with a result in hyperfine's own --export-json shape. Its times are the fake
 * sampler's cost of the framework at the route count (frameworkCost), with a jitter seeded by the
 * benchmark's name and the run's index, so the same benchmark gives the same result every time. The
 * frameworks in `fail` fail as hyperfine does when a command exits with an error.
 */
import seedrandom from 'seedrandom';
import { max, mean, median, min, sampleStandardDeviation } from 'simple-statistics';
import type { Benchmark, BenchmarkOutcome } from '../hyperfine.ts';
import { frameworkCost } from './fake.ts';

export interface FakeHyperfineOptions {
  /** the `--version` line; undefined: hyperfine is not installed */
  version?: string | undefined;
  /** the jitter's coefficient of variation (default 0.05) */
  cv?: number;
  /** every benchmark of these frameworks fails */
  fail?: readonly string[];
}

export class FakeHyperfine {
  /** every benchmark asked, in order */
  readonly calls: Benchmark[] = [];
  private readonly options: FakeHyperfineOptions;

  constructor(options: FakeHyperfineOptions = {}) {
    this.options = options;
  }

  version(): string | undefined {
    return 'version' in this.options ? this.options.version : 'hyperfine 1.19.0 (fake)';
  }

  benchmark(b: Benchmark): Promise<BenchmarkOutcome> {
    this.calls.push(b);
    // every cell's parameters name its framework and route count (report/hyperfine-json.ts cellParameters)
    const { framework, routes } = b.parameters;
    if (framework === undefined || routes === undefined) throw new Error(`benchmark ${b.name}: no framework or routes parameter`);
    if (this.options.fail?.includes(framework))
      return Promise.resolve({ error: 'hyperfine exited with code 1: Error: Command terminated with non-zero exit code: 1' });
    const { baseMs, perRouteMs } = frameworkCost(framework);
    const ms = baseMs + perRouteMs * Number(routes);
    const cv = this.options.cv ?? 0.05;
    const times = Array.from({ length: b.runs }, (_, i) => {
      const random = seedrandom(`${b.name}|${i}`);
      return (ms * (1 + cv * (2 * random() - 1) * Math.sqrt(3))) / 1000;
    });
    const average = mean(times);
    const result = {
      command: b.name,
      mean: average,
      // null with a single run, as hyperfine writes it
      stddev: times.length > 1 ? sampleStandardDeviation(times) : null,
      median: median(times),
      user: average * 0.8,
      system: average * 0.1,
      min: min(times),
      max: max(times),
      times,
      exit_codes: times.map(() => 0),
      parameters: b.parameters,
    };
    return Promise.resolve({ result });
  }
}
