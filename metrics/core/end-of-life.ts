/**
 * When each Node.js release line stops getting security fixes (the Node.js release schedule), so a
 * report can say that the runtime it measured is past end of life: figures for a runtime nobody
 * should deploy any more are history, not advice.
 */
export const NODE_END_OF_LIFE: Record<number, string> = {
  16: '2023-09-11',
  18: '2025-04-30',
  20: '2026-04-30',
  22: '2027-04-30',
  24: '2028-04-30',
};

/** `v20.20.2` measured on `when`: its line's end-of-life date when that had passed, else undefined (also for lines not in the table). */
export function pastEndOfLife(version: string, when: Date): string | undefined {
  const major = /^v(\d+)\./.exec(version.trim())?.[1];
  if (major === undefined) return undefined;
  const eol = NODE_END_OF_LIFE[Number(major)];
  return eol !== undefined && new Date(`${eol}T23:59:59Z`) < when ? eol : undefined;
}
