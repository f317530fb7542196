/**
 * The one place that opens the configured store: memory (the default), SQLite (`--data-dir`) or PostgreSQL
 * (`--database-url`, shared by several processes). Each store is a folder beside this file.
 */
import type { Backend } from "./backend.ts";
import { MemoryBackend } from "./memory/backend.ts";
import { PgBackend, type PgBackendOptions } from "./postgres/backend.ts";
import { SqliteBackend } from "./sqlite/backend.ts";

/** A store of one process, opened synchronously (createApp's default). */
export function openLocalStore(dataDir?: string): Backend {
  return dataDir ? new SqliteBackend(dataDir) : new MemoryBackend();
}

export interface StoreConfig {
  dataDir?: string;
  databaseUrl?: string;
  /** PostgreSQL only: the pool, the logger and what the first process writes (see PgBackendOptions). */
  postgres?: PgBackendOptions;
}

/**
 * The configured store. PostgreSQL is connected, migrated and read first; a database that cannot be used throws
 * StoreUnavailable with the reason (main.ts ends the start with it).
 */
export async function openStore(config: StoreConfig): Promise<Backend> {
  if (config.databaseUrl) return PgBackend.open(config.databaseUrl, config.postgres ?? { initialMeta: {} });
  return openLocalStore(config.dataDir);
}
