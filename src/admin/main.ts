import { createKeyHasher } from '../auth/api-keys.js';
import { loadKeySecret } from '../auth/key-secret.js';
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
    // The gateway's own secret, so that the keys created here work there.
    const keyHasher = () =>
      createKeyHasher(
        loadKeySecret({
          secret: env.keySecret,
          file: env.keySecretFile,
          databaseUrl: env.databaseUrl,
          warn: (line) => process.stderr.write(`warning: ${line}\n`),
        }).secret,
      );
    const write = (line: string) => process.stdout.write(`${line}\n`);
    return await runAdminCommand(argv, store, write, { skillsDir, keyHasher });
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
