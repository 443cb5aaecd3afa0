import { join } from 'node:path';
import { createLocalScorerFactory, createUncachedLocalScorers } from '../scoring/local-scorer.js';
import type { ScorerFactory } from '../scoring/scorer.js';
import {
  type EvalData,
  findEvalDir,
  loadComplexityCases,
  loadEvalData,
  SECOND_COMPLEXITY_FILE,
} from './eval-data.js';
import {
  evaluateComplexity,
  evaluateDependence,
  evaluateImageIntent,
  evaluateRelevance,
  evaluateTags,
  type JudgementReport,
} from './evaluate.js';
import { formatMistakes, formatReport } from './report.js';
import { measureIntentReaderLoad, measureTypicalRequest } from './typical-request.js';

async function evaluateAll(newScorer: ScorerFactory, data: EvalData): Promise<JudgementReport[]> {
  return [
    await evaluateRelevance(newScorer, data.relevance),
    await evaluateDependence(newScorer, data.contextDependence),
    await evaluateComplexity(newScorer, data.complexity),
    await evaluateImageIntent(newScorer, data.imageIntent),
    await evaluateTags(newScorer, data.tagIntent),
  ];
}

/** The held-out sets: every judgement, then the second complexity set as a row of its own. */
async function evaluateHoldout(newScorer: ScorerFactory, holdout: EvalData, holdoutDir: string) {
  const second = await evaluateComplexity(newScorer, loadComplexityCases(holdoutDir, SECOND_COMPLEXITY_FILE));
  return [
    ...(await evaluateAll(newScorer, holdout)),
    { ...second, judgement: `complexity, second set (${SECOND_COMPLEXITY_FILE})` },
  ];
}

/**
 * Entry of `npm run eval`: scores the labelled set under `eval/` (the heuristics were developed on it)
 * and the held-out sets under `eval/holdout/` (never tuned on; complexity has a second one) with the local scorer, prints a Markdown
 * table for each (metric, cases, mean latency per call), then the latency of a typical request.
 * `--verbose` also lists the cases each judgement got wrong; `--dev` scores the dev set only (for tuning,
 * so that the held-out mistakes are never seen while the heuristics change). The model scorer needs a live model and is
 * not evaluated here; `GATEWAY_EVAL_MODEL_SCORER` only makes that explicit.
 */
async function main(argv: readonly string[], modelScorerRequested: boolean): Promise<void> {
  const firstUse = await measureIntentReaderLoad();
  const dir = findEvalDir();
  const data = loadEvalData(dir);
  const holdout = loadEvalData(join(dir, 'holdout'));
  const newScorer = createUncachedLocalScorers();
  const reports = await evaluateAll(newScorer, data);
  const devOnly = argv.includes('--dev');
  const holdoutReports = devOnly ? [] : await evaluateHoldout(newScorer, holdout, join(dir, 'holdout'));
  console.log(
    `Dev set (eval/, the heuristics were developed on it):\n\n${formatReport('local scorer', reports)}`,
  );
  if (!devOnly) {
    console.log(
      `\nHeld-out sets (eval/holdout/, written before tuning, never tuned on):\n\n${formatReport('local scorer', holdoutReports)}`,
    );
  }
  const typical = await measureTypicalRequest(newScorer, createLocalScorerFactory(), data);
  const { micros } = typical;
  console.log(
    `\nTypical request (${typical.promptWords}-word prompt, ${typical.tools} tools, ${typical.earlierTurns} earlier turns), ` +
      `mean µs per call: relevance ${micros.relevance.toFixed(1)}, contextDependence ${micros.contextDependence.toFixed(1)}, ` +
      `complexity ${micros.complexity.toFixed(1)}, imageIntent ${micros.imageIntent.toFixed(1)}; all four ${micros.all.toFixed(1)} ` +
      `(CPU ${micros.allCpu.toFixed(1)}; ${micros.allSharedCache.toFixed(1)} with createLocalScorerFactory's shared cache, tool descriptions already seen).`,
  );
  console.log(
    `\nFirst tagged request (stemmers imported, fields of meaning compiled, once per gateway): ${firstUse.millis.toFixed(1)} ms, heap +${firstUse.heapMegabytes.toFixed(1)} MB.`,
  );
  if (modelScorerRequested) {
    console.log('\nModel scorer: not evaluated (it needs a live embeddings or judge model).');
  }
  if (argv.includes('--verbose')) {
    console.log(`\n${formatMistakes(reports)}`);
    if (!devOnly) console.log(`\n## Held-out set\n\n${formatMistakes(holdoutReports)}`);
  }
}

main(process.argv.slice(2), Boolean(process.env.GATEWAY_EVAL_MODEL_SCORER)).catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
