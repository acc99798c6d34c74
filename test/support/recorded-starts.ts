/** What the meta-paths tests read of a run's meta.json: its text, and each Lambda start's recorded environment. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface Starts {
  lambda: { starts: Record<string, { env?: Record<string, string> }> };
}

export function metaText(out: string): string {
  return readFileSync(path.join(out, 'meta.json'), 'utf8');
}
