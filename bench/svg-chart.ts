// A small standalone SVG line chart (no dependency): x linear, y logarithmic, one polyline with point markers
// per series, axis labels, a title, a legend and optional dashed horizontal goal lines.
import fs from 'node:fs';
import path from 'node:path';

export interface ChartSeries {
  label: string;
  /** [x, y] points; y must be > 0 (log scale); others are left out. */
  points: readonly (readonly [number, number])[];
  colour: string;
}

export interface ChartGoal {
  label: string;
  y: number;
  colour?: string;
}

export interface LineChart {
  title: string;
  /** A second, smaller title line (machine, date, conditions). */
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: readonly ChartSeries[];
  goals?: readonly ChartGoal[];
  width?: number;
  height?: number;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Round steps for a linear axis from 0 to at least `max`. */
function linearTicks(max: number): number[] {
  const raw = max / 6;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step * 1e-9; t += step) ticks.push(Math.round(t * 1e6) / 1e6);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

/** 1-2-5 steps per decade between two powers of ten. */
function logTicks(lowExponent: number, highExponent: number): number[] {
  const ticks: number[] = [];
  for (let e = lowExponent; e <= highExponent; e++) for (const m of [1, 2, 5]) if (e < highExponent || m === 1) ticks.push(m * 10 ** e);
  return ticks;
}

const tickLabel = (value: number): string => (value >= 1000 ? value.toLocaleString('en-US') : String(Number(value.toPrecision(3))));

/** The chart as SVG text. */
export function lineChartSvg(chart: LineChart): string {
  const width = chart.width ?? 720;
  const height = chart.height ?? 440;
  const margin = { left: 72, right: 170, top: chart.subtitle === undefined ? 48 : 64, bottom: 56 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const points = chart.series.flatMap((s) => s.points.filter(([, y]) => y > 0 && Number.isFinite(y)));
  const xs = points.map(([x]) => x);
  const ys = [...points.map(([, y]) => y), ...(chart.goals ?? []).map((g) => g.y)];
  const xTicks = linearTicks(Math.max(1, ...xs));
  const xMax = xTicks[xTicks.length - 1]!;
  const lowExponent = Math.floor(Math.log10(Math.min(...ys, 1)));
  const highExponent = Math.ceil(Math.log10(Math.max(...ys, 10)));
  const yTicks = logTicks(lowExponent, highExponent);
  const xOf = (x: number): number => margin.left + (x / xMax) * plotW;
  const yOf = (y: number): number => margin.top + plotH - ((Math.log10(y) - lowExponent) / (highExponent - lowExponent)) * plotH;
  const n = (v: number): string => v.toFixed(1);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`);
  if (chart.subtitle !== undefined) out.push(`<text x="${width / 2}" y="40" text-anchor="middle" fill="#555">${escapeXml(chart.subtitle)}</text>`);
  for (const t of yTicks) {
    const y = n(yOf(t));
    out.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${margin.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`);
  }
  for (const t of xTicks) {
    const x = n(xOf(t));
    out.push(`<line x1="${x}" y1="${margin.top}" x2="${x}" y2="${margin.top + plotH}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${x}" y="${margin.top + plotH + 18}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  out.push(`<rect x="${margin.left}" y="${margin.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${margin.left + plotW / 2}" y="${height - 14}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${margin.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`);
  let legendY = margin.top + 8;
  const legendX = margin.left + plotW + 16;
  for (const goal of chart.goals ?? []) {
    const y = n(yOf(goal.y));
    const colour = goal.colour ?? '#2a7d2a';
    out.push(`<line x1="${margin.left}" y1="${y}" x2="${margin.left + plotW}" y2="${y}" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    out.push(`<line x1="${legendX}" y1="${legendY}" x2="${legendX + 24}" y2="${legendY}" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${legendX + 30}" y="${legendY}" dominant-baseline="middle">${escapeXml(goal.label)}</text>`);
    legendY += 20;
  }
  for (const series of chart.series) {
    const shown = series.points.filter(([, y]) => y > 0 && Number.isFinite(y));
    if (shown.length > 0) {
      out.push(`<polyline fill="none" stroke="${series.colour}" stroke-width="2" points="${shown.map(([x, y]) => `${n(xOf(x))},${n(yOf(y))}`).join(' ')}"/>`);
      for (const [x, y] of shown) out.push(`<circle cx="${n(xOf(x))}" cy="${n(yOf(y))}" r="3.5" fill="${series.colour}"><title>${escapeXml(`${series.label}: ${tickLabel(x)} → ${y.toFixed(2)}`)}</title></circle>`);
    }
    out.push(`<line x1="${legendX}" y1="${legendY}" x2="${legendX + 24}" y2="${legendY}" stroke="${series.colour}" stroke-width="2"/>`);
    out.push(`<circle cx="${legendX + 12}" cy="${legendY}" r="3.5" fill="${series.colour}"/>`);
    out.push(`<text x="${legendX + 30}" y="${legendY}" dominant-baseline="middle">${escapeXml(series.label)}</text>`);
    legendY += 20;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Writes the chart to `file` (creating its folder). */
export function writeLineChart(file: string, chart: LineChart): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, lineChartSvg(chart));
}
