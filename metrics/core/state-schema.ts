/**
 * State files the tool wrote and reads back (bisect.json, a calibration table, lambda:run's records)
 * checked against a zod schema before any value is used: a file may have been edited, shared or
 * planted, and a value of the wrong type or out of range was used as it was (a string where a number
 * belongs ended in `internal error: v.toFixed is not a function`; 1e308 for the good release named a
 * wrong culprit; a candidate holding ESC and BEL bytes reached the terminal). A value that does not
 * fit is one line (a UsageError, exit 2) naming the file and the field, e.g.
 * `bisect.json: results."2.0.0".value: a number from 0 to 1e15 expected, found "fast"`.
 */
import type { z } from 'zod';
import { UsageError } from './errors.ts';
import { oneLine } from './escape.ts';

/** A field's path as a reader finds it: `results."2.0.0".value`, `steps[3]`; a key from the file is quoted, escaped, and cut. */
function fieldPath(path: readonly PropertyKey[]): string {
  if (!path.length) return '(the whole file)';
  return path
    .map((key, i) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      const plain = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : JSON.stringify(oneLine(name).slice(0, 60));
      return i === 0 ? plain : `.${plain}`;
    })
    .join('')
    .replace(/\.\[/g, '[');
}

/** What a value was, in a few characters (a text from the file, one line and cut): `"fast"`, `null`, `an array`. */
function found(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(oneLine(value).slice(0, 40));
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value;
}

/** The value at `path` inside `root`, to say what was found there. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at = root;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = Object.prototype.hasOwnProperty.call(at, key) ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return at;
}

/**
 * Where `value` does not fit `schema`, in words: the first field that does not fit, what was expected
 * there (the schema's own message) and what was found; undefined when it fits.
 */
export function stateIssue(schema: z.ZodType, value: unknown): string | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `${fieldPath(issue.path)}: ${oneLine(issue.message)}, found ${found(valueAt(value, issue.path))}`;
}

/** `value` (parsed JSON of `file`) as `schema` says, or a UsageError naming the file and the field (stateIssue). */
export function checkState<S extends z.ZodType>(schema: S, value: unknown, file: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(
    `${oneLine(file)}: ${stateIssue(schema, value)}: the file was edited or is not one this tool wrote (repair or remove it)`,
  );
}
