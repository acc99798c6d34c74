/**
 * Text from outside (a child's stderr, imported log fields, file names, the command line, meta.json
 * of a run folder) escaped for the format it lands in: one helper per format, used everywhere such
 * text is written. Each helper leaves ordinary text (letters, digits, spaces, `.,:;=/()-`, words
 * joined by `_`) exactly as it is, so reports of benign runs keep their bytes.
 *
 * CSV goes through csv-stringify (report/csv.ts) and YAML through the yaml library
 * (cloud/sam-template.ts): both quote what needs quoting. The SVG charts are drawn by vega, whose
 * SVG renderer escapes every text it writes (test/unit/escape.test.ts checks it).
 */

/**
 * Control characters (newlines, tabs, escape sequences) and the bidirectional overrides (U+202A–E,
 * U+2066–9, U+200E/F: text shown in another order than it is read, as in "Trojan Source") as one
 * space: one line, nothing a terminal or a renderer acts on.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]+/g, ' ');
}

/**
 * `&`, `<`, `>` and both quotes as XML/HTML entities: for SVG or HTML text and attribute values. The
 * control characters other than tab and line breaks, DEL, the C1 controls and the bidirectional marks
 * and overrides become one space each, as oneLine makes them: a page printed on a terminal (`cat
 * index.html`) acts on none (a folder's ESC ] 0 title sequence reached index.html raw), and a browser
 * shows no text in another order than it is read.
 */
export function xmlText(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
      .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
  );
}

/**
 * Text inside a markdown paragraph, list item or table cell: one line; no HTML (`<`, `>`, `&` become
 * entities), no emphasis, links, images, code spans or table breaks (`\` `` ` `` `*` `[` `]` `~` are
 * backslash-escaped, `|` becomes an entity; `_` too, unless it joins two letters or digits, where it
 * cannot emphasise). Callers never start a line with it (a bullet, a label or a table's `| ` comes
 * first), so `#`, `>` or `1.` at its start cannot make a heading, a quote or a list.
 */
export function markdownText(text: string): string {
  return (
    oneLine(text)
      .replace(/[\\`*[\]~]/g, (c) => `\\${c}`)
      .replace(/_/g, (c, at: number, whole: string) =>
        /[A-Za-z0-9]/.test(whole[at - 1] ?? '') && /[A-Za-z0-9]/.test(whole[at + 1] ?? '') ? c : '\\_',
      )
      // `|` as an entity: a table splits cells before it reads escapes, and markdownTable's `\|` would double it
      .replace(/[&<>|]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '|': '&#124;' })[c]!)
  );
}

/**
 * A markdown code span holding `text` verbatim (as far as markdown allows: newlines become spaces):
 * fenced by one more backtick than the longest run of backticks inside, padded with a space when the
 * text starts or ends with a backtick. Inside a table cell, markdownTable escapes `|` as GitHub asks.
 */
export function markdownCode(text: string): string {
  const line = oneLine(text);
  // a loop, not Math.max(...runs): a text with a million backticks must not overflow the stack
  let longest = 0;
  for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || (line.startsWith(' ') && line.endsWith(' ') && line.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/**
 * A value as JSON that can sit inside an HTML `<script>` element: `<`, `>` and `&` as `\u003c`,
 * `\u003e`, `\u0026` (no `</script>`, no `<!--` can end or change the element), U+2028 and U+2029
 * as escapes (older JavaScript parsers end a line at them), and DEL, C1 and the bidi marks as escapes
 * (a terminal that prints the page acts on none). JSON.parse reads back the same value.
 */
export function scriptJson(value: unknown): string {
  // DEL, the C1 controls and the bidi marks too, as jsonFileText escapes them: JSON.stringify leaves them raw
  return JSON.stringify(value).replace(
    /[<>&\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A value as the text of a JSON file (attribution.json, meta.json, --export-json): what JSON.stringify
 * leaves raw and a terminal or an editor acts on, DEL, the C1 controls (U+0080–9F) and the bidirectional
 * marks and overrides (U+200E/F, U+2028–E, U+2066–9), as `\uXXXX` escapes. JSON.parse reads back the
 * same value; a benign value keeps its bytes.
 */
export function jsonFileText(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    /[\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
