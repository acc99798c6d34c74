/** The run dimensions (one value per run), rows of the same shape as the cell dimensions of dimensions.ts. */
import { ORDERS, type Order } from './dimension-values.ts';
import { dimension, list } from './dimension-row.ts';
import {
  ARCHITECTURES,
  DEFAULT_ARCHITECTURE,
  DEFAULT_MEMORY_MB,
  MAX_MEMORY_MB,
  MIN_MEMORY_MB,
  type Architecture,
} from './lambda-platform.ts';

/** The run dimensions: one value per run (no key, label or CSV column), each with its flag and meta.json key. */
export const RUN_DIMENSIONS = {
  architecture: dimension<Architecture>()({
    values: ARCHITECTURES,
    stored: DEFAULT_ARCHITECTURE,
    cli: [DEFAULT_ARCHITECTURE],
    flags: [
      {
        flag: '--arch',
        arg: '<list>',
        group: 'cost',
        help:
          `comma list of Lambda architectures, ${ARCHITECTURES.join(' and/or ')} (x86 is accepted for x86_64): Lambda cells get ` +
          "an estimate for each (its calibration and its price); the first one's price is the cost table's",
      },
    ],
    // not a cell dimension: a local cell runs on this machine whatever the architecture; only the calibration and the price differ
    help: 'the Lambda architectures Lambda cells are estimated for; the first prices the cost table',
  }),
  costMemory: dimension<number>()({
    values: 'open',
    valid: (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= MIN_MEMORY_MB && v <= MAX_MEMORY_MB,
    stored: DEFAULT_MEMORY_MB,
    cli: [DEFAULT_MEMORY_MB],
    flags: [
      {
        flag: '--cost-memory',
        arg: '<MB>',
        group: 'cost',
        alias: '--memory',
        help:
          `Lambda memory size the cost table prices, in MB (${MIN_MEMORY_MB}–${MAX_MEMORY_MB}); the old spelling --memory still works; ` +
          'the memory sizes cells run at are --lambda-memory',
      },
    ],
    help: 'the Lambda memory size the cost model prices, MB',
  }),
  order: dimension<Order>()({
    values: ORDERS,
    stored: 'interleaved',
    cli: ['interleaved'],
    flags: [
      {
        flag: '--order',
        arg: '<order>',
        group: 'sampling',
        help: (on) => `${ORDERS[0]} (sample 1 of every ${on.what}, then 2 …), ${list(ORDERS.slice(1, -1))} or ${ORDERS[2]}`,
      },
    ],
    help: 'the order of the samples: round by round across cells, cell after cell, or shuffled by a seed',
  }),
} as const;
