import { describe, expect, it } from 'vitest';
import { parseOtelHeaders, readEnv } from './env.js';

describe('readEnv: logging and OpenTelemetry', () => {
  it('defaults to info, format by terminal, and no trace export', () => {
    const env = readEnv({}, []);
    expect(env.logging).toEqual({ level: 'info', format: undefined });
    expect(env.otel).toBeUndefined();
  });

  it('reads LOG_LEVEL and LOG_FORMAT, and refuses unknown values', () => {
    expect(readEnv({ LOG_LEVEL: 'DEBUG', LOG_FORMAT: 'json' }, []).logging).toEqual({
      level: 'debug',
      format: 'json',
    });
    expect(() => readEnv({ LOG_LEVEL: 'chatty' }, [])).toThrow(/LOG_LEVEL/);
    expect(() => readEnv({ LOG_FORMAT: 'xml' }, [])).toThrow(/LOG_FORMAT/);
  });

  it('exports to OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces with the standard sampler variables', () => {
    const env = readEnv(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-token=a%20b,bad,x-other=c',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_SERVICE_NAME: 'edge-gateway',
      },
      [],
    );
    expect(env.otel).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: { 'x-token': 'a b', 'x-other': 'c' },
      protocol: 'http/protobuf',
      serviceName: 'edge-gateway',
      batch: {
        maxQueueSize: 2048,
        maxExportBatchSize: 512,
        scheduledDelayMillis: 5000,
        exportTimeoutMillis: 30_000,
      },
      sampler: 'parentbased_traceidratio',
      samplerArg: '0.25',
    });
  });

  it('prefers the traces endpoint, honours OTEL_SDK_DISABLED and refuses a non-URL', () => {
    const vars = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/custom' };
    expect(readEnv(vars, []).otel?.tracesUrl).toBe('http://t:4318/custom');
    expect(readEnv({ ...vars, OTEL_SDK_DISABLED: 'true' }, []).otel).toBeUndefined();
    expect(() => readEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, [])).toThrow(/OTLP/);
  });

  it('takes the OTLP protocol from the traces or general variable, http/protobuf by default', () => {
    const vars = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(readEnv(vars, []).otel?.protocol).toBe('http/protobuf');
    expect(readEnv({ ...vars, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, []).otel?.protocol).toBe(
      'http/json',
    );
    const both = {
      ...vars,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
    };
    expect(readEnv(both, []).otel?.protocol).toBe('http/protobuf');
    expect(() => readEnv({ ...vars, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, [])).toThrow(/grpc/);
  });

  it('reads the batch span processor variables, bounded', () => {
    const vars = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_BSP_MAX_QUEUE_SIZE: '100',
      OTEL_BSP_SCHEDULE_DELAY: '250',
    };
    expect(readEnv(vars, []).otel?.batch).toEqual({
      maxQueueSize: 100,
      maxExportBatchSize: 100,
      scheduledDelayMillis: 250,
      exportTimeoutMillis: 30_000,
    });
    expect(() => readEnv({ ...vars, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '0' }, [])).toThrow(
      /OTEL_BSP_MAX_EXPORT_BATCH_SIZE/,
    );
    expect(() => readEnv({ ...vars, OTEL_BSP_EXPORT_TIMEOUT: 'soon' }, [])).toThrow(
      /OTEL_BSP_EXPORT_TIMEOUT/,
    );
  });

  it('keeps a header value that is not valid percent-encoding as it is', () => {
    expect(parseOtelHeaders('k=100%')).toEqual({ k: '100%' });
  });
});
