import { describe, expect, it } from 'vitest';
import { givenSemiSpaceMb, START_SEMI_SPACE_MB, youngGenerationWarning } from './young-generation.js';

const NODE_20_V8 = '11.3.244.8-node.33';
const NODE_24_V8 = '13.6.233.17-node.63';

describe('youngGenerationWarning', () => {
  it('warns on V8 13 and later when no semi-space maximum was given', () => {
    const warning = youngGenerationWarning(NODE_24_V8, [], '');
    expect(warning).toContain(`NODE_OPTIONS=--max-semi-space-size=${START_SEMI_SPACE_MB}`);
    expect(warning).toContain(NODE_24_V8);
    expect(youngGenerationWarning('14.0.1', [], '--v8-pool-size=1')).toBeDefined();
  });

  it('is quiet before V8 13, whose maximum is already 16 MB', () => {
    expect(youngGenerationWarning(NODE_20_V8, [], '')).toBeUndefined();
    expect(youngGenerationWarning('12.4.254.21-node.33', [], '')).toBeUndefined();
  });

  it('is quiet when the maximum was given, on the command line or in NODE_OPTIONS, in either spelling', () => {
    expect(youngGenerationWarning(NODE_24_V8, ['--max-semi-space-size=32'], '')).toBeUndefined();
    expect(
      youngGenerationWarning(NODE_24_V8, [], '--v8-pool-size=1 --max-semi-space-size=16'),
    ).toBeUndefined();
    expect(youngGenerationWarning(NODE_24_V8, [], '  --max_semi_space_size=8  ')).toBeUndefined();
    expect(youngGenerationWarning(NODE_24_V8, ['--max-semi-space-size', '16'], '')).toBeUndefined();
  });

  it('is not fooled by a flag that only starts the same way', () => {
    expect(youngGenerationWarning(NODE_24_V8, ['--max-semi-space-sizes=3'], '')).toBeDefined();
    expect(youngGenerationWarning(NODE_24_V8, [], '--max-old-space-size=512')).toBeDefined();
  });
});

describe('givenSemiSpaceMb', () => {
  it('is undefined when no maximum was given', () => {
    expect(givenSemiSpaceMb([], '')).toBeUndefined();
    expect(givenSemiSpaceMb(['--expose-gc'], '--v8-pool-size=1 --max-old-space-size=512')).toBeUndefined();
  });

  it('reads either spelling, with = or as the next argument', () => {
    expect(givenSemiSpaceMb(['--max-semi-space-size=32'], '')).toBe(32);
    expect(givenSemiSpaceMb([], ' --max_semi_space_size=8 ')).toBe(8);
    expect(givenSemiSpaceMb(['--max-semi-space-size', '64'], '')).toBe(64);
  });

  it('takes the last one, the command line after NODE_OPTIONS (as npm start and the operator combine them)', () => {
    expect(givenSemiSpaceMb([], '--v8-pool-size=1 --max-semi-space-size=16 --max-semi-space-size=64')).toBe(
      64,
    );
    expect(givenSemiSpaceMb(['--max-semi-space-size=4'], '--max-semi-space-size=16')).toBe(4);
  });
});
