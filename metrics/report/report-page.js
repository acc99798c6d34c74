// report.html's script (inlined by metrics/report/html.ts; vega's bundle comes before it and defines `vega`, and
// table-sort.js sorts the tables): draws each chart as a vega view, wires the toggles to every chart's filter
// signal and to the tables' rows, and shows tooltips. window.__coldstart holds the views, a promise that settles when
// every chart is drawn, and shown(): what a chart shows now (the browser test reads them). Text goes into the page
// as text, never as HTML.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('coldstart-data').textContent);
  const views = {};
  const tip = document.getElementById('tooltip');

  function tooltip(_handler, event, _item, value) {
    if (value === undefined || value === null || value === '') {
      tip.hidden = true;
      return;
    }
    tip.replaceChildren();
    const entries = typeof value === 'object' ? Object.entries(value) : [['', value]];
    for (const [key, text] of entries) {
      const row = document.createElement('div');
      if (key) {
        const name = document.createElement('b');
        name.textContent = `${key}: `;
        row.append(name);
      }
      row.append(String(text));
      tip.append(row);
    }
    tip.hidden = false;
    // beside the pointer, on its left when the right would leave the window
    const right = event.pageX + 14 + tip.offsetWidth > window.scrollX + document.documentElement.clientWidth;
    tip.style.left = `${right ? event.pageX - 14 - tip.offsetWidth : event.pageX + 14}px`;
    tip.style.top = `${event.pageY + 14}px`;
  }

  async function draw(chart) {
    const view = new vega.View(vega.parse(chart.spec), {
      renderer: 'svg',
      container: document.getElementById(`chart-${chart.id}`),
      hover: true,
    });
    view.tooltip(tooltip);
    views[chart.id] = view;
    await view.runAsync();
  }

  function filterRows() {
    const chosen = [...document.querySelectorAll('select[data-filter]')].filter((s) => s.value !== '');
    for (const row of document.querySelectorAll('table.sortable tbody tr')) {
      row.hidden = chosen.some((s) => {
        const value = row.getAttribute(`data-filter-${s.dataset.filter.toLowerCase()}`);
        return value !== null && value !== s.value;
      });
    }
  }

  async function onSelect(select) {
    const value = select.hasAttribute('data-number') ? Number(select.value) : select.value;
    const targets = select.dataset.chart ? [views[select.dataset.chart]] : Object.values(views);
    await Promise.all(targets.filter(Boolean).map((view) => view.signal(select.dataset.signal, value).runAsync()));
    if (select.dataset.filter) filterRows();
  }

  for (const select of document.querySelectorAll('select[data-signal]')) {
    select.addEventListener('change', () => {
      onSelect(select).catch((error) => console.error(error));
    });
  }
  // the data of what a chart shows now: the items of its mark `name` (its points, `points_marks`; the phase bars, `marks`)
  function shown(id, name) {
    const out = [];
    const visit = (mark) => {
      if (mark.name === name) for (const item of mark.items) out.push({ ...item.datum });
      for (const item of mark.items ?? []) for (const child of item.items ?? []) visit(child);
    };
    visit(views[id].scenegraph().root);
    return out;
  }

  const ready = Promise.all(data.charts.map(draw));
  ready.catch((error) => console.error(error));
  window.__coldstart = { views, ready, toggles: data.toggles, shown };
})();
