/** How well a count stands for time (metrics/analyse/proxy-fit.ts): the line, its R², its worst cell. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { proxyFit } from '../../metrics/analyse/proxy-fit.ts';

test('time in proportion to the count: R² 1, no error, the ms per million counted', () => {
  const fit = proxyFit([1, 2, 3, 4].map((m) => ({ label: `c${m}`, count: m * 1e6, cpuMs: 5 * m })));
  assert.equal(fit.n, 4);
  assert.ok(Math.abs(fit.msPerMillion - 5) < 1e-9);
  assert.ok(Math.abs(fit.r2 - 1) < 1e-12);
  assert.ok(Math.abs(fit.worst.errorPct) < 1e-9 && fit.medianAbsErrorPct < 1e-9);
});

test('a line with an intercept: R² 1, but the proportional estimate misses the small cells most', () => {
  const fit = proxyFit([1, 10, 100, 1000].map((m) => ({ label: `c${m}`, count: m * 1e6, cpuMs: 100 + m })));
  assert.ok(Math.abs(fit.r2 - 1) < 1e-12);
  assert.equal(fit.worst.label, 'c1');
  assert.ok(fit.worst.errorPct < -50, String(fit.worst.errorPct));
});

test('a cell off the line is the worst, signed: the line above it is positive', () => {
  const points = [1, 2, 3, 4, 5].map((m) => ({ label: `c${m}`, count: m * 1e6, cpuMs: 10 * m }));
  points[2] = { label: 'slow', count: 3e6, cpuMs: 20 }; // measured 20 ms where the others say 30
  const fit = proxyFit(points);
  assert.equal(fit.worst.label, 'slow');
  assert.ok(fit.worst.errorPct > 0, String(fit.worst.errorPct));
  assert.ok(fit.r2 < 1 && fit.r2 > 0.5, String(fit.r2));
  assert.throws(() => proxyFit(points.slice(0, 2)), /at least 3 cells/);
});
