/** Facts of the AWS Lambda platform that packaging and importing both rely on. */

/** The instruction sets a function can run on. */
export const ARCHITECTURES = ['x86_64', 'arm64'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];

/** The memory sizes Lambda allows, in MB (MiB, as Lambda means it). */
export const MIN_MEMORY_MB = 128;
export const MAX_MEMORY_MB = 10_240;

export function isArchitecture(value: string): value is Architecture {
  return (ARCHITECTURES as readonly string[]).includes(value);
}

/** The longest a function may run, ms (15 minutes): no Duration can exceed it. */
export const MAX_DURATION_MS = 900_000;
