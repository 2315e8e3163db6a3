// A uPlot chart of daily series (one point per day of the range, missing days 0).
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

const COLORS = ['#2f6fde', '#e0662d', '#2a9d5b', '#b8407a', '#7a5bd6', '#c49a00', '#1a9fb0', '#7d7d7d'];
const DAY = 86400;

/** Every day from `from` to `to` (YYYY-MM-DD), as seconds. */
export function days(from, to) {
  const out = [];
  for (let t = Date.parse(`${from}T00:00:00Z`) / 1000; t <= Date.parse(`${to}T00:00:00Z`) / 1000; t += DAY) out.push(t);
  return out;
}

/** series: [{ label, byDate: { 'YYYY-MM-DD': number } }] */
export function DailyChart({ from, to, series, name }) {
  const el = useRef(null);
  useEffect(() => {
    const xs = days(from, to);
    const iso = xs.map((t) => new Date(t * 1000).toISOString().slice(0, 10));
    const data = [xs, ...series.map((s) => iso.map((d) => s.byDate[d] ?? 0))];
    const width = Math.max(320, Math.min(el.current.clientWidth || 720, 960));
    const plot = new uPlot({
      width, height: 220, tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      series: [{ label: 'day' }, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: xs.length < 60 } }))],
      axes: [{}, { size: 60 }],
      // Labels only: values on hover would need the pointer, and the tables below give the figures.
      legend: { live: false },
      scales: { x: { time: true } },
    }, data, el.current);
    return () => plot.destroy();
  }, [from, to, JSON.stringify(series)]);
  return html`<div class="chart" data-chart=${name} ref=${el}></div>`;
}
