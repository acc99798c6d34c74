/**
 * The command lines of the docs (README.md, docs/guide/*.md): each `npm run …` and `npx coldstart …` of a
 * fenced block (with its `\\` continuations) or an inline code span, and the argv coldstart gets for it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../metrics/core/paths.ts';
import { tempDir } from './in-process.ts';

const SCRIPTS = (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const COMMAND = /(?:^|[\s`(])((?:npm run(?: -s)? [a-z][a-z:-]*|npx coldstart)(?: .*)?)$/;
export const SYNOPSIS = /\[|…|\.\.\.|\||<|\$\{|\$\(|NAME|DIR\b|FILE\b|\bID\b/;

/** The shell's words of a line: blanks split, single and double quotes kept together, a `#` comment cut. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      assert.ok(end > i, `unclosed quote in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) break;
    else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Each command line of a Markdown text, with the line it starts on. */
export function commandLines(text: string): { line: number; command: string }[] {
  const found: { line: number; command: string }[] = [];
  const lines = text.split('\n');
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*```/.test(lines[i]!)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      let line = lines[i]!;
      const start = i;
      while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
      const match = COMMAND.exec(line);
      if (match) found.push({ line: start + 1, command: match[1]! });
    } else
      for (const span of lines[i]!.matchAll(/`([^`]+)`/g)) {
        // a bare `npm run report` in prose names the command; with arguments, it is one
        const match = /^(?:npm run(?: -s)? [a-z][a-z:-]*|npx coldstart) .+$/.exec(span[1]!);
        if (match) found.push({ line: i + 1, command: match[0] });
      }
  }
  return found;
}

/** The argv coldstart gets for a command line, or undefined when it is not coldstart's (another npm script). */
export function coldstartArgs(command: string): string[] | undefined {
  const words = shellWords(command.replace(/\s*&&.*$/, ''));
  if (words[0] === 'npx') return words.slice(2);
  const rest = words.slice(words[2] === '-s' ? 3 : 2);
  const script = SCRIPTS[rest[0]!];
  const sub = script && /metrics\/cli\/main\.ts ([a-z-]+)$/.exec(script);
  if (!sub) return undefined;
  const dash = rest.indexOf('--');
  return [sub[1]!, ...(dash < 0 ? [] : rest.slice(dash + 1))];
}

/** The files the examples name, in an app's folder: the parse checks that an --entry, a --handler's module, an --event exist. */
const APP_FILES: Record<string, string> = {
  'app.js': '',
  'server.js': '',
  'dist/server.js': '',
  'old/server.js': '',
  'new/server.js': '',
  'src/index.js': 'exports.handler = async () => ({ statusCode: 200 });\nexports.init = async () => {};\n',
  'event.json': '{}',
  'events/api-v2.json': '{}',
  'order.json': '{}',
  // the dependencies the --versions examples name
  'package.json': JSON.stringify({ name: 'my-app', dependencies: { '@aws-sdk/client-dynamodb': '3.700.0', ms: '2.1.3' } }),
};

export function appFolder(): string {
  const dir = tempDir();
  for (const [file, text] of Object.entries(APP_FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}
