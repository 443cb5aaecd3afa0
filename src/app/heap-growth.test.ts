import { describe, expect, it } from 'vitest';
import { defaultHeapGrowthPercent } from './heap-growth.js';

describe('defaultHeapGrowthPercent', () => {
  it.each([
    ['11.3.244.8-node.34', 30], // Node 20
    ['12.4.254.21-node.33', 30], // Node 22
    ['13.6.233.17-node.37', 0], // Node 24
    ['14.1.146.11-node.12', 0],
  ])('is %s → %i', (v8Version, percent) => {
    expect(defaultHeapGrowthPercent(v8Version)).toBe(percent);
  });

  it('reads the running V8 by default', () => {
    const major = Number.parseInt(process.versions.v8, 10);
    expect(defaultHeapGrowthPercent()).toBe(major >= 13 ? 0 : 30);
  });
});
