/**
 * bisect.json's schema: what a resumed bisect trusts of the state a previous one wrote. Every value is
 * checked before the search reads it (core/state-schema.ts): a candidate is a release or a commit as
 * the tool names them (letters, digits, `.`, `+`, `_`, `-`: no control, escape or bidi byte reaches a
 * terminal or bisect.md), a measured value is a finite number from 0 to 1e15 (an instruction count of
 * a cold start is about 1e8 to 1e11, a CPU time some ms; 1e308 made any release bad), a result and a
 * step name a candidate, and no candidate is listed twice.
 */
import { z } from 'zod';

/** The largest value a step records: 1e15 instructions is days of CPU, 1e15 ms longer still. */
const MAX_STEP_VALUE = 1e15;
/** More candidates than any range holds (`--yes` bisects ranges past 32; the registry's longest lists have some thousands). */
const MAX_STATE_CANDIDATES = 100_000;

const candidate = z
  .string()
  .regex(/^[0-9A-Za-z][0-9A-Za-z.+_-]{0,199}$/, 'a release or a commit (letters, digits, ".", "+", "_", "-"; at most 200) expected');
const value = z
  .number('a number expected')
  .refine((n) => Number.isFinite(n) && n >= 0 && n <= MAX_STEP_VALUE, `a number from 0 to ${MAX_STEP_VALUE} expected`);
const phase = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,79}$/, 'a phase name (letters, digits, " ._-") expected');

const result = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('measured'), value, phases: z.record(phase, value) }),
    z.object({ kind: z.literal('skipped'), reason: z.string().max(4000, 'a reason of at most 4000 characters expected') }),
  ],
  { error: 'a result ({"kind": "measured", "value", "phases"} or {"kind": "skipped", "reason"}) expected' },
);

export const bisectStateSchema = z
  .object({
    version: z.literal(1, 'version 1 expected'),
    identity: z.record(z.string(), z.unknown()),
    candidates: z.array(candidate).min(2, 'at least the two ends expected').max(MAX_STATE_CANDIDATES),
    results: z.record(z.string(), result),
    steps: z.array(z.string()),
  })
  .superRefine((state, ctx) => {
    const known = new Set(state.candidates);
    if (known.size !== state.candidates.length)
      ctx.addIssue({ code: 'custom', path: ['candidates'], message: 'candidates listed once each expected' });
    for (const key of Object.keys(state.results))
      if (!known.has(key)) ctx.addIssue({ code: 'custom', path: ['results', key], message: 'a result of a candidate expected' });
    state.steps.forEach((step, i) => {
      if (!Object.prototype.hasOwnProperty.call(state.results, step))
        ctx.addIssue({ code: 'custom', path: ['steps', i], message: 'a measured candidate (one with a result) expected' });
    });
  });
