import type { JudgementReport } from './evaluate.js';

/** The evaluation as a Markdown table, one row per judgement. */
export function formatReport(scorerName: string, reports: readonly JudgementReport[]): string {
  const lines = [
    `| Judgement (${scorerName}) | Metric | Cases | Mean latency per call (µs) | CPU per call (µs) |`,
    '| --- | --- | ---: | ---: | ---: |',
    ...reports.map(
      (report) =>
        `| ${report.judgement} | ${report.metric} | ${report.cases} | ${report.meanLatencyMicros.toFixed(1)} | ${report.meanCpuMicros.toFixed(1)} |`,
    ),
  ];
  return lines.join('\n');
}

/** The cases each judgement got wrong, for `--verbose`. */
export function formatMistakes(reports: readonly JudgementReport[]): string {
  return reports
    .map((report) =>
      [`### ${report.judgement}: ${report.mistakes.length} wrong`, ...report.mistakes].join('\n'),
    )
    .join('\n\n');
}
