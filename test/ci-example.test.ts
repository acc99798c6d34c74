/**
 * The GitHub Actions example of the README (a matrix of shards counting base and head, merged and
 * compared) is a valid workflow: GitHub's own parser (@actions/workflow-parser, which carries the
 * workflow schema) reads it without an error, and it uses the options it documents. No network.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { ROOT } from './helpers.ts';

/** The first ```yaml block after the heading of the shard and merge section. */
function readmeWorkflow(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.indexOf('### Spreading counted runs over machines');
  assert.ok(section >= 0, 'the README has the section');
  const match = /```yaml\n([\s\S]*?)```/.exec(readme.slice(section));
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

describe("the README's GitHub Actions example", () => {
  it('is a valid workflow with a shard matrix, merge and compare', async () => {
    const workflow = readmeWorkflow();
    assert.deepEqual(await errorsOf(workflow), []);
    assert.match(workflow, /--measure instructions/);
    assert.match(workflow, /--shard \$\{\{ matrix\.shard \}\}\/4/);
    assert.match(workflow, /npm run merge -- /);
    assert.match(workflow, /npm run compare -- base head --metric instructions/);
  });

  it('the check can fail: a misspelt key and a job that needs a missing job are errors', async () => {
    const workflow = readmeWorkflow();
    assert.notDeepEqual(await errorsOf(workflow.replace('runs-on:', 'runs-onn:')), []);
    assert.notDeepEqual(await errorsOf(workflow.replace('needs: count', 'needs: nothing')), []);
  });
});
