// The operator dashboard's only script (served from the gateway; the CSP allows no inline code).
// Draws each <figure class="chart" data-chart="{json}"> with uPlot, and asks before destructive forms.
(() => {
  const PALETTE = ['#2f5bd3', '#d9822b', '#1e7b34', '#b3261e', '#7a4fc9', '#0f8b8d', '#8c6d1f', '#c2185b'];

  /** A tick of the y axis with the digits small amounts need (0.00008 USD, not 0). */
  function formatTick(value) {
    if (value === 0) return '0';
    return Math.abs(value) >= 1000 ? value.toLocaleString('en') : String(Number(value.toPrecision(3)));
  }

  /** Draws one chart from its data attribute: `{x: [epoch seconds], series: [{label, values}], unit}`. */
  function drawChart(figure) {
    let spec;
    try {
      spec = JSON.parse(figure.dataset.chart || '');
    } catch {
      return;
    }
    if (!spec || !Array.isArray(spec.x) || !Array.isArray(spec.series) || typeof uPlot !== 'function') return;
    const target = figure.querySelector('.plot');
    if (!target) return;
    const width = Math.max(320, target.clientWidth || 600);
    const series = [{}].concat(
      spec.series.map((one, index) => ({
        label: String(one.label),
        stroke: PALETTE[index % PALETTE.length],
        width: 2,
        points: { show: spec.x.length < 40 },
      })),
    );
    const data = [spec.x].concat(spec.series.map((one) => one.values));
    const options = {
      width,
      height: 220,
      series,
      axes: [{}, { label: spec.unit || '', size: 70, values: (_plot, splits) => splits.map(formatTick) }],
      scales: { x: { time: true } },
    };
    new uPlot(options, data, target);
    figure.dataset.drawn = 'true';
  }

  function confirmForms() {
    for (const form of document.querySelectorAll('form[data-confirm]')) {
      form.addEventListener('submit', (event) => {
        if (!window.confirm(form.dataset.confirm)) event.preventDefault();
      });
    }
  }

  function start() {
    for (const figure of document.querySelectorAll('figure.chart[data-chart]')) drawChart(figure);
    confirmForms();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
