import { describe, expect, it } from 'vitest';
import { defaultHeapGrowthPercent, growthPercent } from './heap-growth.js';
import { givenSemiSpaceMb } from './young-generation.js';

const MB = 1024 * 1024;

describe('defaultHeapGrowthPercent', () => {
  it.each([
    ['11.3.244.8-node.34', undefined, 30], // Node 20
    ['11.3.244.8-node.34', 32, 30], // Node 20 with a larger young generation of the operator's choosing
    ['12.4.254.21-node.33', undefined, 30], // Node 22
    ['13.6.233.17-node.37', 16, 30], // Node 24 as npm start runs it
    ['13.6.233.17-node.37', 8, 30],
    ['13.6.233.17-node.37', undefined, 0], // Node 24 with V8's own young generation
    ['13.6.233.17-node.37', 64, 0],
    ['14.1.146.11-node.12', undefined, 0],
    ['14.1.146.11-node.12', 16, 30],
  ])('is %s, semi-spaces of %s MB → %i', (v8Version, semiSpaceMb, percent) => {
    expect(defaultHeapGrowthPercent(v8Version, semiSpaceMb)).toBe(percent);
  });

  it('reads the running V8 and its options by default', () => {
    const major = Number.parseInt(process.versions.v8, 10);
    const semiSpaceMb = givenSemiSpaceMb(process.execArgv, process.env.NODE_OPTIONS ?? '');
    const nodeTwentySized = semiSpaceMb !== undefined && semiSpaceMb <= 16;
    expect(defaultHeapGrowthPercent()).toBe(major >= 13 && !nodeTwentySized ? 0 : 30);
  });
});

describe('growthPercent (server.heapHeadroomMb)', () => {
  it('gives a small heap the headroom: 16 MB past 25 MB kept is 64 %', () => {
    expect(growthPercent(25 * MB, 25 * MB, 30, 16 * MB)).toBe(64);
  });

  it('leaves a heap whose percentage is room enough to the percentage', () => {
    expect(growthPercent(60 * MB, 60 * MB, 30, 16 * MB)).toBe(30);
    expect(growthPercent(200 * MB, 210 * MB, 30, 16 * MB)).toBe(30);
  });

  it('measures a heap that grew past its room since the last full collection on its new size', () => {
    // Kept 25 MB, holds 90 MB now: the next collection keeps at least 90 − 16 = 74 MB, which 30 % covers.
    expect(growthPercent(25 * MB, 90 * MB, 30, 16 * MB)).toBe(30);
    // Kept 10 MB, holds 36 MB: at least 20 MB will be kept, 16 MB of room is 80 %.
    expect(growthPercent(10 * MB, 36 * MB, 30, 16 * MB)).toBe(80);
  });

  it('never asks more than 300 %, nor divides by nothing', () => {
    expect(growthPercent(1 * MB, 1 * MB, 30, 16 * MB)).toBe(300);
    expect(growthPercent(0, 0, 30, 16 * MB)).toBe(300);
  });
});
