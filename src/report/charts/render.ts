/**
 * How a report chart is drawn: echarts' server-side SVG renderer, loaded on first use, with
 * output that depends on its input only; the Chart a builder returns (null SVG with the reason
 * when there is nothing to plot, so the page never shows an empty frame that looks like a
 * measurement of zero); the frame every chart of a run report shares.
 */
import { createRequire } from 'node:module';
import type { EChartsOption } from 'echarts';

export interface Chart {
  id: string;
  title: string;
  /** SVG markup, or null when there is nothing to plot. */
  svg: string | null;
  /** Why there is no chart, or what to read from it. */
  caption: string;
}

export const CHART_WIDTH = 760;
export const CHART_HEIGHT = 340;

type Echarts = typeof import('echarts');
let echartsLoaded: Echarts | null = null;

/**
 * echarts, loaded on the first chart and not before: most of a run's life needs no chart, and
 * its fixed cost is mostly module loading. `require` takes a single-file CommonJS
 * build; `import` would take its ES module tree (hundreds of files, ≈ 1 CPU s). The "common"
 * build (line, bar, scatter, pie; grid, legend, markLine, both renderers) has every chart and
 * component the report draws, at 2.5 of the full build's 3.8 MB: ≈ 70 instead of ≈ 150 ms to
 * load here, and byte-identical report.html for the results tried (five of test/fixtures, one
 * no-traffic run; 20 charts: line, bar, scatter, log axis, markLine). A chart type or
 * component outside it must switch back to `echarts` (the full build).
 */
function echartsLib(): Echarts {
  echartsLoaded ??= createRequire(import.meta.url)('echarts/dist/echarts.common.js') as Echarts;
  return echartsLoaded;
}

/**
 * zrender names the ids and classes inside each SVG with process-wide counters
 * ("zr7-c0", "zr7-cls-12"), so the same chart would render differently on each call. They
 * are renamed from the chart id and the order of appearance: output depends on input only,
 * and the SVGs of one page still do not share ids (clip paths and styles stay apart).
 */
export function renderSvg(
  id: string,
  option: EChartsOption,
  width = CHART_WIDTH,
  height = CHART_HEIGHT,
): string {
  const chart = echartsLib().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: 'sans-serif' }, ...option });
    const prefix = `rc-${id.replace(/[^A-Za-z0-9_-]/g, '_')}-`;
    // Class names carry a second global counter ("zr0-cls-7"): number them in order of appearance.
    const seen = new Map<string, string>();
    const perKind = new Map<string, number>();
    return chart
      .renderToSVGString()
      .replace(/\bzr\d+-([a-z]+-?)(\d+)\b/g, (token, kind: string) => {
        let out = seen.get(token);
        if (out === undefined) {
          const n = perKind.get(kind) ?? 0;
          perKind.set(kind, n + 1);
          out = `${prefix}${kind}${n}`;
          seen.set(token, out);
        }
        return out;
      });
  } finally {
    chart.dispose();
  }
}

// Room on the right for safe-line labels and a second axis; a wide legend gap because the
// SSR renderer measures text without the browser's fonts.
export const baseGrid = { left: 70, right: 70, top: 50, bottom: 55, containLabel: false };
export const legend = { top: 8, type: 'scroll' as const, itemGap: 28 };
