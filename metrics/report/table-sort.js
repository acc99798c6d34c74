// Sorting for the tables of report.html and results/index.html (inlined by metrics/report/html.ts and
// index-html.ts): a click (or Enter) on a header of a `table.sortable` sorts its rows by that column, a cell's
// `data-sort` as a number when it has one, else its text; a second click reverses.
(function () {
  'use strict';
  function sortBy(th) {
    const table = th.closest('table');
    const column = [...th.parentNode.children].indexOf(th);
    const ascending = th.getAttribute('aria-sort') !== 'ascending';
    for (const other of th.parentNode.children) other.removeAttribute('aria-sort');
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    const key = (row) => {
      const cell = row.children[column];
      const sort = cell?.dataset.sort;
      return sort === undefined ? (cell?.textContent ?? '') : Number(sort);
    };
    const rows = [...table.tBodies[0].rows];
    rows.sort((a, b) => {
      const x = key(a);
      const y = key(b);
      // numbers before text (a '–' for no value sorts last either way)
      if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
      const order = typeof x === 'number' ? x - y : x.localeCompare(y, 'en', { numeric: true });
      return ascending ? order : -order;
    });
    table.tBodies[0].append(...rows);
  }

  for (const th of document.querySelectorAll('table.sortable th')) {
    th.addEventListener('click', () => sortBy(th));
    th.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        sortBy(th);
      }
    });
  }
})();
