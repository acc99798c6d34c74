import { loadGenerators } from './generators/registry.ts';
import { writeGenerated } from './generators/write.ts';
import { runSample } from './metrics/runner.ts';
import { makeCell } from './metrics/cell.ts';
import { contractOf } from './generators/contract.ts';
import { childEnvironment } from './metrics/environment.ts';
import type { Variant } from './generators/types.ts';

const only = (process.env.ONLY ?? 'express,hono,koa,h3,hapi,restify').split(',');
const reps = Number(process.env.REPS ?? 1);
const generators = (await loadGenerators()).filter((g) => only.includes(g.name));
for (const g of generators) {
  for (const variant of ['validated', 'plain'] as Variant[]) {
    for (const routes of [1, 1000]) {
      const w = await writeGenerated(g, routes, variant);
      // determinism
      const again = await g.generate({ routes, variant });
      if (again !== (await g.generate({ routes, variant }))) throw new Error(`${g.name} not deterministic`);
      for (let k = 1; k <= reps; k++) {
        const r = await runSample({
          cell: makeCell({ framework: g.name, variant, routes }),
          launch: { command: process.execPath, args: [w.file], cwd: '/tmp', env: childEnvironment().env },
          contract: contractOf(g), phase: 'sample', index: k, timeoutMs: 60000,
          checkInvalidBody: variant === 'validated',
        });
        const m = r.marks;
        const f = (x?: number) => (x === undefined ? '-' : x.toFixed(1));
        console.log(
          [g.name, variant, routes, r.ok, r.error ?? '', m ? `imported=${f(m.imported)} startup=${f(m.startup)} listen=${f(m.listen)} firstResponse=${f(m.firstResponse)}` : '', JSON.stringify(r.invalidBody ?? null), r.stderrTail ?? ''].join(' | '),
        );
      }
    }
  }
}
