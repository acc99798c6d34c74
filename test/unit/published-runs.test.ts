/**
 * Every committed run folder under results/published/ is reproducible: its report, rebuilt from its
 * samples.jsonl and meta.json alone (`npm run report -- FOLDER`), gives every committed report file
 * byte for byte, and the folder holds no report file the report would no longer write. A change to the
 * report code that changes a published page fails here: re-report the folders (and say why in the commit).
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { publishedFolders } from '../../metrics/pipeline/results-page.ts';
import { writeReport } from '../../metrics/report/write.ts';
import { ROOT, tempDir } from '../support/in-process.ts';

/** What a run folder holds that its report reads rather than writes. */
const INPUTS = new Set(['samples.jsonl', 'meta.json', 'hyperfine.json', 'attribution.json']);

const folders = publishedFolders(path.join(ROOT, 'results'));

describe('results/published: each run folder re-reports to the same bytes', () => {
  it('has published runs', () => assert.ok(folders.length > 0, 'results/published/ holds no run folder'));

  for (const { name, folder } of folders) {
    it(name, async () => {
      const copy = path.join(tempDir('coldstart-published-'), name);
      cpSync(folder, copy, { recursive: true });
      const { written } = await writeReport(copy);
      const committed = readdirSync(folder);
      for (const file of written) {
        assert.ok(committed.includes(file), `${name}/${file} is written by the report but not committed: run npm run report -- ${folder}`);
        assert.ok(
          readFileSync(path.join(copy, file)).equals(readFileSync(path.join(folder, file))),
          `${name}/${file} differs from what npm run report writes from its samples: re-report it`,
        );
      }
      const stale = committed.filter((file) => !INPUTS.has(file) && !written.includes(file));
      assert.deepEqual(stale, [], `${name}: files the report no longer writes`);
    });
  }
});
