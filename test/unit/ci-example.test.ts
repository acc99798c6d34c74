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
import { parseAction } from '@actions/workflow-parser/actions/index';
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

/** The gate guide's workflows: its ```yaml blocks (docs/guide/gate.md), the app's first, the framework repository's second. */
function gateWorkflows(): string[] {
  const blocks = [...readFileSync(path.join(ROOT, 'docs', 'guide', 'gate.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)];
  assert.equal(blocks.length, 2, 'docs/guide/gate.md has two yaml blocks');
  return blocks.map((block) => block[1]!);
}
const gateWorkflow = () => gateWorkflows()[0]!;

function actionErrors(content: string): string[] {
  const parsed = parseAction({ name: 'action.yml', content }, new NoOperationTraceWriter());
  return parsed.context.errors.getErrors().map((e) => e.message);
}

describe("the gate's action and its documented workflow", () => {
  const action = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');

  it('action.yml is a valid composite action that installs valgrind, runs the gate and uploads its folder', () => {
    assert.deepEqual(actionErrors(action), []);
    assert.match(action, /using: composite/);
    assert.match(action, /apt-get install -y -q valgrind/);
    assert.match(action, /args=\(--base "\$BASE" --threshold "\$THRESHOLD" --rounds "\$ROUNDS" --out "\$OUT"\)/);
    assert.match(action, /args\+=\(--entry "\$ENTRY"\)/);
    assert.match(action, /args\+=\(--frameworks "\$FRAMEWORKS" --framework-from "\$FRAMEWORK_FROM"\)/);
    assert.match(action, /bin\/coldstart\.js" gate "\$\{args\[@\]\}"/);
    assert.match(action, /if \[ "\$CACHE_SIM" = true \]; then args\+=\(--cache-sim\); fi/);
    assert.match(action, /if \[ "\$ATTRIBUTE" = true \]; then args\+=\(--attribute\); fi/);
    assert.match(action, /uses: actions\/upload-artifact@v4/);
    for (const input of ['base', 'entry', 'frameworks', 'routes', 'framework-from', 'threshold', 'cache-sim', 'attribute'])
      assert.match(action, new RegExp(`^  ${input}:$`, 'm'));
  });

  it('the ten-line workflow for an app is valid and uses the action', async () => {
    const workflow = gateWorkflow();
    assert.deepEqual(await errorsOf(workflow), []);
    assert.equal(workflow.trim().split('\n').length, 10);
    assert.match(workflow, /uses: your-org\/coldstart@main/);
    assert.match(workflow, /fetch-depth: 0/);
  });

  it("the ten-line workflow for a framework's repository is valid and gates its generated cells", async () => {
    const workflow = gateWorkflows()[1]!;
    assert.deepEqual(await errorsOf(workflow), []);
    assert.equal(workflow.trim().split('\n').length, 10);
    assert.match(workflow, /uses: your-org\/coldstart@main/);
    assert.match(workflow, /frameworks: fastify/);
    assert.match(workflow, /framework-from: \./);
  });

  it('the check can fail: a misspelt key of the action or of the workflow is an error', async () => {
    assert.notDeepEqual(actionErrors(action.replace('using: composite', 'usin: composite')), []);
    assert.notDeepEqual(actionErrors(action.replace('shell: bash', 'shel: bash')), []);
    assert.notDeepEqual(await errorsOf(gateWorkflow().replace('runs-on:', 'runs-onn:')), []);
  });
});
