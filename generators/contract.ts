import { DEFAULT_EVENT_FORMAT, type Contract, type FrameworkGenerator } from './types.ts';

/** The name the runner sends; fixed so that answers are comparable and deterministic. */
export const PROBE_NAME = 'coldstart';

export const defaultContract: Contract = {
  eventFormat: DEFAULT_EVENT_FORMAT,
  validBody: (_i, name) => ({ name }),
  invalidBody: () => ({}),
};

export function contractOf(generator: Pick<FrameworkGenerator, 'contract'> & Partial<Pick<FrameworkGenerator, 'eventFormat'>>): Contract {
  return { ...defaultContract, ...generator.contract, eventFormat: generator.eventFormat ?? DEFAULT_EVENT_FORMAT };
}

export function routePath(i: number): string {
  return `/route-${i}`;
}

/**
 * Is `value` a correct answer from route i for `name`? It must contain, at any depth, an object
 * with `hello === name` and `route === i` (RPC frameworks nest it under the route id).
 */
export function isExpectedAnswer(value: unknown, i: number, name: string, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 4) return false;
  const record = value as Record<string, unknown>;
  if (record.hello === name && record.route === i) return true;
  return Object.values(record).some((inner) => isExpectedAnswer(inner, i, name, depth + 1));
}
