import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** One static file of the dashboard, held in memory. */
export interface DashboardAsset {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** Served names and where they come from: the chart library from its npm package, the rest from `assets/`. */
const SOURCES = [
  { name: 'uplot.js', module: 'uplot/dist/uPlot.iife.min.js', type: 'text/javascript; charset=utf-8' },
  { name: 'uplot.css', module: 'uplot/dist/uPlot.min.css', type: 'text/css; charset=utf-8' },
  { name: 'dashboard.js', file: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  { name: 'dashboard.css', file: 'dashboard.css', type: 'text/css; charset=utf-8' },
] as const;

/** `assets/dashboard/` at the package root, from both `src/dashboard/` and `dist/dashboard/`. */
const ASSET_DIR = new URL('../../assets/dashboard/', import.meta.url);

/**
 * Reads the dashboard's scripts and styles once (at start): a fixed list of names, so a request can never
 * name a file of its own choosing.
 */
export async function loadDashboardAssets(): Promise<ReadonlyMap<string, DashboardAsset>> {
  const require = createRequire(import.meta.url);
  const assets = new Map<string, DashboardAsset>();
  for (const source of SOURCES) {
    const path = 'module' in source ? require.resolve(source.module) : new URL(source.file, ASSET_DIR);
    const body = await readFile(path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(source.name, { body, contentType: source.type, etag });
  }
  return assets;
}
