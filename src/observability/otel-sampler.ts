import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';

/**
 * The sampler the standard variables name: `OTEL_TRACES_SAMPLER` (`always_on`, `always_off`, `traceidratio`,
 * `parentbased_always_on` (default), `parentbased_always_off`, `parentbased_traceidratio`) with
 * `OTEL_TRACES_SAMPLER_ARG` the ratio (0..1, default 1). Anything else is a start-up error.
 */
export function samplerFromEnv(name: string, arg: string | undefined): Sampler {
  const ratio = () => {
    if (arg === undefined) return 1;
    const value = Number(arg);
    if (!Number.isFinite(value) || value < 0 || value > 1)
      throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1, got "${arg}"`);
    return value;
  };
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      throw new Error(
        `OTEL_TRACES_SAMPLER "${name}" is not supported (always_on, always_off, traceidratio, ` +
          'parentbased_always_on, parentbased_always_off, parentbased_traceidratio)',
      );
  }
}
