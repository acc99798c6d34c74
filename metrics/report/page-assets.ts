/**
 * What the HTML pages (report.html, results/index.html) carry inline: files read whole and checked
 * so that none can end or change the <script> or <style> element it goes into.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A file a page carries inline; `</script`, `</style` or `<!--` in it would end or change its element, so it is refused. */
export function inlineText(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (/<\/script|<\/style|<!--/i.test(text)) throw new Error(`${file} holds </script, </style or <!--: it cannot be inlined in a page`);
  return text;
}

/** The pages' own scripts and style, beside this file: report-page.js, table-sort.js, report-page.css. */
export function pageAsset(name: string): string {
  return inlineText(path.join(import.meta.dirname, name));
}

/**
 * The start of a page up to its <body>: its Content-Security-Policy (each page allows only what it
 * runs; nothing may be fetched), its (escaped) title and the pages' inline style.
 */
export function pageHead(csp: string, escapedTitle: string): string[] {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapedTitle}</title>`,
    `<style>\n${pageAsset('report-page.css')}</style>`,
    '</head>',
    '<body>',
  ];
}
