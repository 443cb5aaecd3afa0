import Database from 'better-sqlite3';

/**
 * Statements prepared for a one-off use (migrations at start), kept as long as their database.
 *
 * On Node 24, a native object of better-sqlite3 (a statement, through Node's `ObjectWrap`) that the garbage
 * collector frees unregisters an environment cleanup hook, and a collection that runs outside any context
 * (in a microtask checkpoint, say) aborts the whole process on a failed assertion (`(env) != nullptr` in
 * `RemoveEnvironmentCleanupHook`). So while the gateway runs no statement may become garbage: every statement
 * is prepared once and held by the store (its fields, or here), and pragmas are set with `exec`, which makes
 * no statement object. Node 20 and 22 are not affected.
 */
const kept = new WeakMap<Database.Database, Database.Statement[]>();

export function prepareKept(db: Database.Database, sql: string): Database.Statement {
  const statement = db.prepare(sql);
  const list = kept.get(db);
  if (list) list.push(statement);
  else kept.set(db, [statement]);
  return statement;
}

/**
 * Every SQLite store of the process, held until it exits: a store that became garbage (a test that drops
 * one, a tool done with its store) would free its statements, which on Node 24 can abort the process as
 * described above. A closed store holds little: `close` frees its database's memory.
 */
const held = new Set<object>();

export function keepForLife(store: object): void {
  held.add(store);
}

/**
 * A database opened outside a store (a test reading a file the store wrote, a tool), held for the life of the
 * process like the stores: prepare on it with `prepareKept`, and nothing it made becomes garbage.
 */
export function openKept(filename: string, options?: Database.Options): Database.Database {
  const db = new Database(filename, options);
  held.add(db);
  return db;
}
