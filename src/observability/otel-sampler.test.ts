import { ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { samplerFromEnv } from './otel-sampler.js';

const decide = (name: string, arg?: string, traceId = 'ffffffffffffffffffffffffffffffff') =>
  samplerFromEnv(name, arg).shouldSample(ROOT_CONTEXT, traceId, 'span', SpanKind.SERVER, {}, []).decision;

describe('samplerFromEnv (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG)', () => {
  it('samples everything by default and nothing when off', () => {
    expect(decide('parentbased_always_on')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('always_off')).toBe(SamplingDecision.NOT_RECORD);
  });

  it('samples by trace id ratio', () => {
    expect(decide('traceidratio', '0')).toBe(SamplingDecision.NOT_RECORD);
    expect(decide('parentbased_traceidratio', '1')).toBe(SamplingDecision.RECORD_AND_SAMPLED);
    expect(decide('traceidratio', '0.5', '00000000000000000000000000000001')).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });

  it.each([
    ['traceidratio', '2'],
    ['traceidratio', 'half'],
    ['sometimes', undefined],
  ])('refuses %s with %s', (name, arg) => {
    expect(() => samplerFromEnv(name, arg)).toThrow(/OTEL_TRACES_SAMPLER/);
  });
});
