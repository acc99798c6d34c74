/**
 * The levers' answer on the terminal (issue 51): at the end of a run that has levers.md, its answer
 * section (a heading and the table per app, the bullets under it: the fastest, the cheapest, each
 * variant that failed with its reason), without the section's long opening paragraph, which
 * levers.md keeps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** report/levers.ts's LEVERS_FILE (the command layer does not import the report's modules). */
const LEVERS_FILE = 'levers.md';

/** The answer section of levers.md's text: its `###` headings, tables and bullets; undefined without one. */
export function leverAnswerText(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith('## The answer'));
  if (start < 0) return undefined;
  const end = lines.findIndex((line, at) => at > start && line.startsWith('## '));
  const kept = lines
    .slice(start + 1, end < 0 ? undefined : end)
    .filter((line) => line.startsWith('###') || line.startsWith('|') || line.startsWith('- ') || line === '');
  const text = kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text ? `The levers' answer (${LEVERS_FILE}):\n\n${text}` : undefined;
}

/** The answer of the run folder `dir`'s levers.md, when it has one. */
export function leverAnswerOf(dir: string): string | undefined {
  let markdown: string;
  try {
    markdown = readFileSync(path.join(dir, LEVERS_FILE), 'utf8');
  } catch {
    return undefined;
  }
  return leverAnswerText(markdown);
}
