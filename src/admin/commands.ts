import { parseArgs } from 'node:util';
import type { KeyHasher } from '../auth/api-keys.js';
import { skillCommands } from '../skills/skill-commands.js';
import type { Store } from '../store/store.js';
import { ORG_ID } from './admin-schemas.js';
import {
  allPages,
  describeOrganization,
  formatTable,
  parseCache,
  parseMonthlyLimit,
  parseRpm,
  UsageError,
} from './command-values.js';
import { type AdminOperations, createAdminOperations } from './operations.js';

/** Exit codes of the admin command line. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

type Out = (line: string) => void;

/** What some commands need besides the store. */
export interface AdminOptions {
  /** The skills directory (config `skills.dir`), asked for only by `skills` commands. */
  skillsDir?: () => string;
  /** The keyed hash of the gateway (its key secret), asked for only by `key create`. */
  keyHasher?: () => KeyHasher;
}

interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | undefined>;
  /** The `--flag` switches given. */
  switches: ReadonlySet<string>;
}

interface Command {
  /** Words after the command name, e.g. `<id> [--name N]`. */
  usage: string;
  summary: string;
  /** Names of the positionals, all required. */
  positionals: string[];
  /** Names of the `--option VALUE` flags the command takes. */
  options: string[];
  /** Names of the `--flag` switches (no value) the command takes. */
  switches?: string[];
  run(args: ParsedArgs, ops: AdminOperations, out: Out, options: AdminOptions): Promise<number>;
}

/** Who the audit log names for writes of the command line. */
const ACTOR = 'admin-cli';

const COMMANDS: Record<string, Command> = {
  'org create': {
    usage: '<id> [--name NAME] [--monthly-limit USD|none] [--rpm N|none] [--cache-ttl SECONDS|none]',
    summary: 'create an organization, or update an existing one',
    positionals: ['id'],
    options: ['name', 'monthly-limit', 'rpm', 'cache-ttl'],
    async run({ positionals: [id = ''], values }, ops, out) {
      if (!ORG_ID.test(id)) {
        throw new UsageError(
          `organization id must be letters, digits, ".", "_" or "-" (max 128), got "${id}"`,
        );
      }
      const monthlyLimit = parseMonthlyLimit(values['monthly-limit']);
      const rpm = parseRpm(values.rpm);
      const rateLimit = rpm === undefined ? undefined : rpm === null ? null : { requestsPerMinute: rpm };
      const cache = parseCache(values['cache-ttl']);
      const existed = await ops.getOrganization(id).then(
        () => true,
        () => false,
      );
      const org = existed
        ? await ops.updateOrganization(ACTOR, id, { name: values.name, monthlyLimit, rateLimit, cache })
        : await ops.createOrganization(ACTOR, {
            id,
            name: values.name,
            monthlyLimit: monthlyLimit ?? undefined,
            rateLimit: rateLimit ?? undefined,
            cache: cache ?? undefined,
          });
      out(`${existed ? 'updated' : 'created'} organization ${describeOrganization(org)}`);
      return EXIT_OK;
    },
  },
  'org list': {
    usage: '',
    summary: 'list organizations',
    positionals: [],
    options: [],
    async run(_args, ops, out) {
      const orgs = await allPages((query) => ops.listOrganizations(query));
      if (orgs.length === 0) {
        out('no organizations');
        return EXIT_OK;
      }
      const rows = orgs.map((org) => [
        org.id,
        org.name,
        org.monthlyLimit ?? '',
        org.rateLimit === null ? '' : String(org.rateLimit.requestsPerMinute),
        org.cache === null ? '' : String(org.cache.ttlSeconds),
        org.createdAt,
      ]);
      const header = ['ID', 'NAME', 'MONTHLY_LIMIT_USD', 'RPM', 'CACHE_TTL_S', 'CREATED'];
      for (const line of formatTable(header, rows)) out(line);
      return EXIT_OK;
    },
  },
  'org delete': {
    usage: '<id>',
    summary: 'delete an organization and revoke its API keys',
    positionals: ['id'],
    options: [],
    async run({ positionals: [id = ''] }, ops, out) {
      await ops.deleteOrganization(ACTOR, id);
      out(`deleted organization ${id}; its API keys no longer work`);
      return EXIT_OK;
    },
  },
  'key create': {
    usage: '<orgId> [--name NAME] [--monthly-limit USD] [--rpm N] [--models ID,GLOB,...] [--expires-at ISO]',
    summary: 'create an API key for an organization and print it once',
    positionals: ['orgId'],
    options: ['name', 'monthly-limit', 'rpm', 'models', 'expires-at'],
    async run({ positionals: [orgId = ''], values }, ops, out) {
      const monthlyLimit = parseMonthlyLimit(values['monthly-limit']) ?? undefined;
      const rpm = parseRpm(values.rpm) ?? undefined;
      const created = await ops.createKey(ACTOR, orgId, {
        name: values.name,
        monthlyLimit,
        rateLimit: rpm === undefined ? undefined : { requestsPerMinute: rpm },
        models: values.models?.split(',').filter(Boolean),
        expiresAt: values['expires-at'],
      });
      out(
        `created API key ${created.id} for organization ${orgId}${created.name ? ` (name: ${created.name})` : ''}:`,
      );
      out(created.key);
      out('This key will not be shown again; store it somewhere safe now.');
      return EXIT_OK;
    },
  },
  'key list': {
    usage: '[--org ID]',
    summary: 'list API keys (never the keys themselves)',
    positionals: [],
    options: ['org'],
    async run({ values }, ops, out) {
      const keys = await allPages((query) => ops.listKeys(values.org, query));
      if (keys.length === 0) {
        out('no API keys');
        return EXIT_OK;
      }
      const rows = keys.map((k) => [k.id, k.organization, k.name, k.prefix, k.createdAt, k.revokedAt ?? '']);
      for (const line of formatTable(['ID', 'ORG', 'NAME', 'PREFIX', 'CREATED', 'REVOKED'], rows)) out(line);
      return EXIT_OK;
    },
  },
  'key revoke': {
    usage: '<keyId>',
    summary: 'revoke an API key',
    positionals: ['keyId'],
    options: [],
    async run({ positionals: [keyId = ''] }, ops, out) {
      await ops.revokeKey(ACTOR, keyId);
      out(`revoked API key ${keyId}`);
      return EXIT_OK;
    },
  },
  'key rotate': {
    usage: '<keyId>',
    summary: 'give an API key a new secret (same id and limits) and print it once; the old one stops working',
    positionals: ['keyId'],
    options: [],
    async run({ positionals: [keyId = ''] }, ops, out) {
      const rotated = await ops.rotateKey(ACTOR, keyId);
      out(`rotated API key ${keyId}; its new secret:`);
      out(rotated.key);
      out('This key will not be shown again; store it somewhere safe now.');
      return EXIT_OK;
    },
  },
  ...skillCommands({ usageError: (message) => new UsageError(message), formatTable }),
};

function printHelp(out: Out): void {
  out('usage: npm run admin -- <command>');
  out('');
  for (const [name, command] of Object.entries(COMMANDS)) {
    out(`  ${`${name} ${command.usage}`.trimEnd()}`);
    out(`      ${command.summary}`);
  }
  out('  help');
  out('      show this help');
}

/** node:util `parseArgs` in strict mode, its complaints turned into usage errors. */
function parseOrThrowUsage(args: string[], optionNames: string[], switchNames: string[]) {
  const options = Object.fromEntries([
    ...optionNames.map((option) => [option, { type: 'string' as const }] as const),
    ...switchNames.map((name) => [name, { type: 'boolean' as const }] as const),
  ]);
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(message.replaceAll('\n', ' '));
  }
}

/** Parses the words after the command name against the command's positionals and options. */
function parseCommandArgs(name: string, command: Command, args: string[]): ParsedArgs {
  const parsed = parseOrThrowUsage(args, command.options, command.switches ?? []);
  const expected = command.positionals.length;
  if (parsed.positionals.length !== expected) {
    const names = command.positionals.map((p) => `<${p}>`).join(' ');
    throw new UsageError(
      expected === 0
        ? `${name} takes no arguments, got "${parsed.positionals.join(' ')}"`
        : `${name} expects ${names}, got ${parsed.positionals.length} argument(s)`,
    );
  }
  const values: Record<string, string | undefined> = {};
  const switches = new Set<string>();
  for (const [key, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') values[key] = value;
    else if (value === true) switches.add(key);
  }
  return { positionals: parsed.positionals, values, switches };
}

/**
 * Runs one admin command (`org create acme --monthly-limit 25`, `key create acme`, …) against the store and
 * returns the process exit code: 0 done, 1 the command failed, 2 it was called wrongly. Output goes through
 * `out` one line at a time, so the command line and the tests share this function. The `skills` commands
 * manage the skills directory of `options.skillsDir`.
 */
export async function runAdminCommand(
  argv: string[],
  store: Store,
  out: Out,
  options: AdminOptions = {},
): Promise<number> {
  const [group, action, ...rest] = argv;
  if (group === 'help' || group === '--help' || group === '-h') {
    printHelp(out);
    return EXIT_OK;
  }
  const name = `${group ?? ''} ${action ?? ''}`;
  const command = COMMANDS[name];
  if (command === undefined) {
    out(group === undefined ? 'error: no command given' : `error: unknown command "${name.trim()}"`);
    printHelp(out);
    return EXIT_USAGE;
  }
  const ops = createAdminOperations({
    store,
    keyHasher: () => {
      if (!options.keyHasher) throw new Error('no API key secret is available to hash the new key with');
      return options.keyHasher();
    },
    skillsDir: () => {
      if (!options.skillsDir) throw new Error('no skills directory is configured');
      return options.skillsDir();
    },
  });
  try {
    return await command.run(parseCommandArgs(name, command, rest), ops, out, options);
  } catch (error) {
    if (error instanceof UsageError) {
      out(`error: ${error.message}`);
      out(`usage: ${`${name} ${command.usage}`.trimEnd()}`);
      return EXIT_USAGE;
    }
    out(`error: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILURE;
  }
}
