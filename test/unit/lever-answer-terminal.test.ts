/**
 * The levers' answer on the terminal (issue 51): at the end of a run whose folder has levers.md, the
 * answer section's tables and bullets are printed before the last line, without the long paragraph,
 * and escaped for the terminal; a run without levers.md prints only its last line.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { leverAnswerOf, leverAnswerText } from '../../metrics/cli/lever-answer.ts';
import { finishRun } from '../../metrics/cli/run.ts';
import type { RunResult } from '../../metrics/pipeline/run.ts';
import { ROOT, tempDir } from '../support/in-process.ts';

const PUBLISHED = path.join(ROOT, 'results', 'published', '2026-11-26-lambda-floor', 'levers.md');

function printed(result: RunResult): string {
  const write = process.stdout.write.bind(process.stdout);
  let out = '';
  process.stdout.write = (chunk: string) => {
    out += chunk;
    return true;
  };
  try {
    finishRun(result, true);
  } finally {
    process.stdout.write = write;
    process.exitCode = undefined;
  }
  return out;
}

describe("the levers' answer on the terminal", () => {
  it("keeps levers.md's answer tables and bullets, not its opening paragraph", () => {
    const text = leverAnswerText(readFileSync(PUBLISHED, 'utf8'));
    assert.ok(text);
    assert.match(text, /^The levers' answer \(levers\.md\):/);
    assert.match(text, /\n### node-http, 1 route, lambda \(128 MB/);
    assert.match(text, /\n\| nodejs24\.x \| 253 \(204–278\) \|/);
    assert.match(text, /\n- Fastest: \*\*nodejs24\.x\*\*, 253 ms at the median\./);
    assert.doesNotMatch(text, /Every variant of the levers you change/);
    assert.equal(leverAnswerText('# Which lever helps\n\n## runtime\n\n| a |\n'), undefined);
  });

  it("is printed before the run's last line when the folder has levers.md, escaped; nothing more without it", () => {
    const dir = tempDir('coldstart-lever-answer-');
    const run = path.join(dir, 'run\u001b]0;x');
    mkdirSync(run);
    copyFileSync(PUBLISHED, path.join(run, 'levers.md'));
    const result = { dir: run, recorded: 10, failed: 0, interrupted: false } as unknown as RunResult;
    const out = printed(result);
    assert.ok(out.indexOf('| nodejs24.x |') >= 0 && out.indexOf('| nodejs24.x |') < out.indexOf('results in'), out);
    assert.equal(out.includes('\u001b'), false, 'escaped for the terminal');
    const plain = tempDir('coldstart-lever-answer-');
    assert.equal(leverAnswerOf(plain), undefined);
    const alone = printed({ dir: plain, recorded: 10, failed: 0, interrupted: false } as unknown as RunResult);
    assert.equal(alone.trim().split('\n').length, 1, alone);
  });
});
