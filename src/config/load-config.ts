import { readFileSync } from 'node:fs';
import { isPair, isScalar, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { configSchema, type GatewayConfig } from './config-schema.js';

/** A config file that cannot be used; the message names the file and the offending path. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads, interpolates and validates the YAML config file. Without a path, the built-in defaults.
 * `${NAME}` is replaced by the environment variable NAME; a missing variable is an error naming it.
 */
export function loadConfig(path: string | undefined, vars: Readonly<Record<string, string | undefined>>) {
  if (path === undefined) return parseConfig({}, '(defaults)');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYamlKeepingCaps(text) ?? {};
  } catch (error) {
    throw new ConfigError(`Config file ${path} is not valid YAML: ${(error as Error).message}`);
  }
  return parseConfig(interpolate(raw, vars, ''), path);
}

/** Keys whose YAML numbers are money: read as the decimal text written, not as a binary double. */
const DECIMAL_TEXT_KEYS = new Set(['monthlyLimit']);

/**
 * Parses YAML; a plain number under a money key keeps its source text (`0.0000005`, `1234567890.123456789`),
 * so that no digit is lost to floating point before the schema reads it as an exact decimal.
 */
function parseYamlKeepingCaps(text: string): unknown {
  const document = parseDocument(text);
  if (document.errors.length > 0) throw document.errors[0];
  visit(document, {
    Pair(_key, pair) {
      if (!isPair(pair) || !isScalar(pair.key) || !isScalar(pair.value)) return;
      if (!DECIMAL_TEXT_KEYS.has(String(pair.key.value))) return;
      const value = pair.value;
      if (
        typeof value.value === 'number' &&
        value.source !== undefined &&
        /^[\d.eE+-]+$/.test(value.source)
      ) {
        value.value = value.source;
      }
    },
  });
  return document.toJS();
}

/** Validates an already-parsed config object. */
export function parseConfig(raw: unknown, source: string): GatewayConfig {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(`Invalid config ${source}:\n${formatIssues(result.error)}`);
  const config = result.data;
  checkReferences(config, source);
  return config;
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join('.') || '(root)';
      if (issue.code === 'unrecognized_keys') {
        return issue.keys
          .map((key) => `  - ${path === '(root)' ? key : `${path}.${key}`}: unknown key`)
          .join('\n');
      }
      return `  - ${path}: ${issue.message}`;
    })
    .join('\n');
}

function interpolate(
  value: unknown,
  vars: Readonly<Record<string, string | undefined>>,
  path: string,
): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const replacement = vars[name];
      if (replacement === undefined) {
        throw new ConfigError(
          `Config ${path || '(root)'} refers to \${${name}}, which is not set in the environment`,
        );
      }
      return replacement;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => interpolate(item, vars, `${path}.${index}`));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        interpolate(item, vars, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}

function checkReferences(config: GatewayConfig, source: string): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  config.providers.forEach((provider, index) => {
    if (seen.has(provider.id))
      problems.push(`  - providers.${index}.id: duplicate provider id "${provider.id}"`);
    seen.add(provider.id);
    if (provider.supports && provider.api !== 'openai') {
      problems.push(`  - providers.${index}.supports: only providers with api openai take "supports"`);
    }
    if (provider.quirks && provider.api !== 'openai') {
      problems.push(`  - providers.${index}.quirks: only providers with api openai take "quirks"`);
    }
  });
  const keys = new Set<string>();
  config.organizations.forEach((org, orgIndex) => {
    org.apiKeys.forEach((key, keyIndex) => {
      if (keys.has(key)) problems.push(`  - organizations.${orgIndex}.apiKeys.${keyIndex}: key listed twice`);
      keys.add(key);
    });
  });
  if (problems.length > 0) throw new ConfigError(`Invalid config ${source}:\n${problems.join('\n')}`);
}
