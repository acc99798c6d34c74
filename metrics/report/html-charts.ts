/**
 * report.html's interactive charts as vega-lite specs, compiled here to vega specs (the page then
 * needs vega alone, not vega-lite's compiler): the median against routes with its 95 % CI band,
 * the phases stacked at a chosen route count, and the Lambda Init estimate against routes. Every
 * chart has one signal per toggle (`filter_<dimension>`, '' for all) that the page's controls set,
 * and tooltips that show the figures as summary.md writes them.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ColorDef, Field, PositionDef } from 'vega-lite/types_unstable/channeldef.js';
import type { UnitSpec } from 'vega-lite/types_unstable/spec/unit.js';
import { CHART_CONFIG, logTicks, stackedPhases } from './charts.ts';
import { EVIDENCE_STATES, type CalibratedBand, type CurveDatum, type EstimateDatum, type PhaseDatum, type Toggle } from './html-data.ts';

const WIDTH = 640;
const HEIGHT = 380;

/** The signal a toggle sets. Dimension names are identifiers of the dimension table, never text from outside. */
export function filterSignal(toggle: Toggle): string {
  return `filter_${toggle.dimension}`;
}

/** The signal the phase chart's route count select sets. */
export const PHASES_ROUTES_SIGNAL = 'phases_routes';

function filters(toggles: Toggle[]) {
  return {
    params: toggles.map((t) => ({ name: filterSignal(t), value: '' })),
    transform: toggles.map((t) => ({ filter: `${filterSignal(t)} === '' || datum['${t.dimension}'] === ${filterSignal(t)}` })),
  };
}

/**
 * Okabe and Ito's eight colours (Color Universal Design, 2008; Wong, Nature Methods 2011): told apart
 * with each common colour-vision deficiency, unlike tableau10's red–green and tableau20's paired hues.
 * The next eight series take eight further colours (SECOND_COLOURS), each with a dashed line and another
 * point shape, so every series of up to 16 has a colour of its own (deepkit and node-http were both black,
 * deepkit-http and restify both orange) and up to 32 stay distinct by colour, dash and shape together.
 */
export const OKABE_ITO = ['#000000', '#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7'] as const;
/**
 * The colours of series 9 to 16: Paul Tol's muted scheme less its three nearest to an Okabe–Ito colour
 * (green, cyan, sand), with its pale grey made darker to be seen on white, and a dark brown.
 */
export const SECOND_COLOURS = ['#882255', '#332288', '#999933', '#CC6677', '#44AA99', '#AA4499', '#661100', '#777777'] as const;
/** Each round of eight series: its line's dash and its points' shape. */
export const SERIES_DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
  [8, 3, 2, 3],
] as const;
export const SERIES_SHAPES = ['circle', 'square', 'triangle-up', 'diamond'] as const;

/** The style of the i-th series: an Okabe–Ito colour, and past eight another colour, a dash and a shape of its round. */
export function seriesStyle(i: number): { color: string; dash: readonly number[]; shape: string } {
  const round = Math.floor(i / OKABE_ITO.length) % SERIES_DASHES.length;
  const colours = round % 2 === 0 ? OKABE_ITO : SECOND_COLOURS;
  return { color: colours[i % OKABE_ITO.length]!, dash: SERIES_DASHES[round]!, shape: SERIES_SHAPES[round]! };
}

/** One scale over every series (the domain is every series, so a style stays with its series when toggled); one merged legend. */
function seriesScale(labels: string[], pick: (style: ReturnType<typeof seriesStyle>) => unknown) {
  return { domain: labels, range: labels.map((_, i) => pick(seriesStyle(i))) };
}

function colorOf(labels: string[]) {
  return { field: 'series', type: 'nominal', title: 'series', scale: seriesScale(labels, (s) => s.color) } as const;
}

/** The dash of each series' line and the shape of its points, beside its colour. */
function styleOf(labels: string[]) {
  return {
    strokeDash: { field: 'series', type: 'nominal', title: 'series', scale: seriesScale(labels, (s) => s.dash) },
    shape: { field: 'series', type: 'nominal', title: 'series', scale: seriesScale(labels, (s) => s.shape) },
  } as const;
}

function routesAxis(points: { routes: number }[]) {
  const routes = [...new Set(points.map((p) => p.routes))].sort((a, b) => a - b);
  return {
    field: 'routes',
    type: 'quantitative',
    title: 'routes (N, log scale)',
    scale: { type: 'log' },
    axis: { format: ',', values: routes },
  } as const;
}

export interface CurveText {
  title: string;
  axis: string;
}

type Tooltip = { field: string; title: string; format?: string };

/**
 * A line per series and its points, whose tooltips name the series and the route count, then `figures`:
 * the two layers every curve of the page draws.
 */
function lineAndPoints(y: PositionDef<Field>, color: ColorDef<Field>, labels: string[], figures: Tooltip[]): UnitSpec<Field>[] {
  const tooltip: Tooltip[] = [{ field: 'series', title: 'series' }, { field: 'routes', title: 'routes', format: ',' }, ...figures];
  const { strokeDash, shape } = styleOf(labels);
  return [
    { name: 'line', mark: { type: 'line', strokeWidth: 2 }, encoding: { y, color, strokeDash } },
    {
      name: 'points',
      mark: { type: 'point', filled: true, size: 60 },
      encoding: { y, color: { ...color, legend: null }, shape: { ...shape, legend: null }, tooltip },
    },
  ];
}

/** Median against routes, one line and points per series, the 95 % CI band, log–log; tooltips on the points. */
export function curveHtmlSpec(points: CurveDatum[], text: CurveText, toggles: Toggle[]): TopLevelSpec {
  const labels = [...new Set(points.map((p) => p.series))];
  const yTicks = logTicks(Math.min(...points.map((v) => v.low)), Math.max(...points.map((v) => v.high)));
  const yScale = { type: 'log' as const, domain: [yTicks[0]!, yTicks[yTicks.length - 1]!], nice: false };
  const y = { field: 'median', type: 'quantitative', title: text.axis, scale: yScale, axis: { format: ',', values: yTicks } } as const;
  const color = colorOf(labels);
  return {
    title: { text: text.title, subtitle: 'median per cell; band: 95 % bootstrap CI of the median; hover a point for its figures' },
    config: CHART_CONFIG,
    width: WIDTH,
    height: HEIGHT,
    data: { values: points },
    ...filters(toggles),
    encoding: { x: routesAxis(points) },
    layer: [
      {
        name: 'band',
        mark: { type: 'area', opacity: 0.18 },
        encoding: { y: { ...y, field: 'low' }, y2: { field: 'high' }, color: { ...color, legend: null } },
      },
      ...lineAndPoints(y, color, labels, [
        { field: 'medianText', title: 'median (ms)' },
        { field: 'ciText', title: '95 % CI of the median (ms)' },
        { field: 'rangeText', title: 'fastest–slowest (ms)' },
        { field: 'n', title: 'samples' },
      ]),
    ],
    resolve: { legend: { color: 'independent' } },
  };
}

/** The phases of every series stacked at one route count, chosen by the page (PHASES_ROUTES_SIGNAL). */
export function phasesHtmlSpec(rows: PhaseDatum[], routes: number, toggles: Toggle[]): TopLevelSpec {
  const { params, transform } = filters(toggles);
  return {
    title: { text: 'Where the time goes', subtitle: 'median of each phase, stacked, at the route count chosen above the chart' },
    config: CHART_CONFIG,
    width: WIDTH,
    height: { step: 26 },
    data: { values: rows },
    params: [...params, { name: PHASES_ROUTES_SIGNAL, value: routes }],
    transform: [{ filter: `datum.routes === ${PHASES_ROUTES_SIGNAL}` }, ...transform],
    mark: { type: 'bar' },
    encoding: {
      y: { field: 'series', type: 'nominal', title: 'series', sort: null },
      ...stackedPhases(),
      tooltip: [
        { field: 'series', title: 'series' },
        { field: 'routes', title: 'routes', format: ',' },
        { field: 'phase', title: 'phase' },
        { field: 'msText', title: 'median (ms)' },
      ],
    },
  };
}

/**
 * The Init estimate on Lambda against routes, per series of local Lambda cells: a grey band per setting for
 * the estimates the code-loading term's fit covers, a vertical line for each estimate's interval, and its
 * point, a cross when the estimate lies beyond its evidence (no interval then; the legend's two states).
 */
export function estimateHtmlSpec(points: EstimateDatum[], toggles: Toggle[], bands: CalibratedBand[] = []): TopLevelSpec {
  const labels = [...new Set(points.map((p) => p.series))];
  const color = colorOf(labels);
  const y = {
    field: 'estimate',
    type: 'quantitative',
    title: 'Init Duration estimate on Lambda (ms)',
    scale: { zero: false },
    axis: { format: ',.0f' },
  } as const;
  const { params, transform } = filters(toggles);
  const [line, dots] = lineAndPoints(y, color, labels, [
    { field: 'setting', title: 'as on Lambda' },
    { field: 'estimateText', title: 'Init estimate (ms)' },
    { field: 'intervalText', title: 'interval (ms)' },
    { field: 'evidence', title: 'evidence' },
    { field: 'measuredText', title: 'Init measured here (ms)' },
    { field: 'additionText', title: 'Lambda adds (ms, spread)' },
  ]);
  const shape = {
    field: 'state',
    type: 'nominal',
    title: 'evidence',
    scale: { domain: [...EVIDENCE_STATES], range: ['circle', 'cross'] },
  } as const;
  return {
    title: {
      text: 'Lambda Init Duration estimate vs route count',
      subtitle:
        "measured here + what Lambda adds (see Calibration); vertical lines: each estimate's interval; grey band: the " +
        "estimates the code-loading term's fit covers; a cross: beyond evidence (no interval)",
    },
    config: CHART_CONFIG,
    width: WIDTH,
    height: HEIGHT,
    params,
    layer: [
      {
        name: 'calibrated',
        data: { values: bands },
        mark: { type: 'rect', color: '#888', opacity: 0.15 },
        encoding: {
          y: { field: 'low', type: 'quantitative' },
          y2: { field: 'high' },
          tooltip: [
            { field: 'setting', title: 'as on Lambda' },
            { field: 'text', title: 'calibrated range (ms)' },
          ],
        },
      },
      {
        data: { values: points },
        transform,
        encoding: { x: routesAxis(points) },
        layer: [
          {
            name: 'interval',
            mark: { type: 'rule', strokeWidth: 1.5, opacity: 0.6 },
            encoding: { y: { ...y, field: 'low' }, y2: { field: 'high' }, color: { ...color, legend: null } },
          },
          line!,
          { ...dots!, encoding: { ...dots!.encoding, shape } },
        ],
      },
    ],
  };
}

/** A vega-lite spec compiled to vega (vega-lite loads on first use, as for the SVG charts). */
export async function compileSpec(spec: TopLevelSpec): Promise<unknown> {
  const { compile } = await import('vega-lite');
  return compile(spec).spec;
}
