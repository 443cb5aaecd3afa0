import { readEnv } from '../config/env.js';
import { loadConfig } from '../config/load-config.js';
import { openStore } from '../store/open-store.js';
import { runAdminCommand } from './commands.js';

/**
 * Entry of `npm run admin -- <command>`: opens the store named by DATABASE_URL (the same one the gateway
 * uses), runs one command, closes the store and sets the exit code, so operators manage organizations and
 * keys without the server running. The `skills` commands read `skills.dir` from the config file
 * (GATEWAY_CONFIG); it is loaded only for them.
 */
async function main(argv: string[]): Promise<number> {
  const env = readEnv(process.env, []);
  const store = await openStore(env.databaseUrl);
  try {
    const skillsDir = () => loadConfig(env.configPath, env.vars).skills.dir;
    return await runAdminCommand(argv, store, (line) => process.stdout.write(`${line}\n`), { skillsDir });
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
