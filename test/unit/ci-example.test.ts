/**
 * The GitHub Actions example of the counting guide (docs/guide/counting-instructions.md: a matrix of
 * shards counting base and head, merged and compared) is a valid workflow: GitHub's own parser (@actions/workflow-parser, which carries the
 * workflow schema) reads it without an error, and it uses the options it documents. No network.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { ROOT } from '../support/in-process.ts';

const GUIDE = path.join('docs', 'guide', 'counting-instructions.md');

/** The first ```yaml block after the heading of the shard and merge section. */
function guideWorkflow(): string {
  const guide = readFileSync(path.join(ROOT, GUIDE), 'utf8');
  const section = guide.indexOf('## Spreading counted runs over machines');
  assert.ok(section >= 0, `${GUIDE} has the section`);
  const match = /```yaml\n([\s\S]*?)```/.exec(guide.slice(section));
  assert.ok(match, 'the section has a yaml block');
  return match[1]!;
}

async function errorsOf(content: string): Promise<string[]> {
  const parsed = parseWorkflow({ name: 'coldstart-counted.yml', content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length || !parsed.value) return errors.length ? errors : ['no workflow'];
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return [...errors, ...(template.errors ?? []).map((e) => e.Message)];
}

describe("the counting guide's GitHub Actions example", () => {
  it('is a valid workflow with a shard matrix, merge and compare', async () => {
    const workflow = guideWorkflow();
    assert.deepEqual(await errorsOf(workflow), []);
    assert.match(workflow, /--measure instructions/);
    assert.match(workflow, /--shard \$\{\{ matrix\.shard \}\}\/4/);
    assert.match(workflow, /npm run merge -- /);
    assert.match(workflow, /npm run compare -- base head --metric instructions/);
  });

  it('the check can fail: a misspelt key and a job that needs a missing job are errors', async () => {
    const workflow = guideWorkflow();
    assert.notDeepEqual(await errorsOf(workflow.replace('runs-on:', 'runs-onn:')), []);
    assert.notDeepEqual(await errorsOf(workflow.replace('needs: count', 'needs: nothing')), []);
  });
});
