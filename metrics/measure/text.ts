/** Turning what a child printed into a one-line reason. */
import { oneLine as printable } from '../core/escape.ts';

/** The most telling line of a crashed child's stderr: its error line, not node's (or Bun's) closing version line. */
export function telling(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(Node\.js|Bun) v\d/.test(l));
  return lines.findLast((l) => /\b\w*(Error|Exception)\b|^error:/.test(l)) ?? lines.at(-1) ?? '';
}

/**
 * Whitespace folded, control, escape and bidi characters made spaces (a child's OSC title, screen
 * clear or override reaches no terminal and no report), cut at `max` characters with an ellipsis.
 */
export function oneLine(text: string, max = 200): string {
  const flat = printable(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max) + '…' : flat;
}
