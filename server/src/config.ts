import { parseCorsOrigins } from "./http/cors.ts";
import { DEFAULT_TENANT_LIMITS, type TenantLimits } from "./model/tenant-limits.ts";

/** Each per-tenant limit's environment variable (the `start` command's options set them). */
export const TENANT_LIMIT_ENV: Record<keyof TenantLimits, string> = {
  projects: "MAX_PROJECTS_PER_TENANT",
  planted: "MAX_PLANTED_PER_TENANT",
  eventsKept: "EVENTS_KEPT_PER_TENANT",
  attemptsKept: "ATTEMPTS_KEPT_PER_PROJECT",
  streams: "MAX_STREAMS_PER_TENANT",
  streamsPerAddress: "MAX_STREAMS_PER_ADDRESS",
  held: "MAX_HELD_PER_TENANT",
  heldPerAddress: "MAX_HELD_PER_ADDRESS",
  streamBufferBytes: "STREAM_BUFFER_BYTES",
  deliveriesPerTenant: "WEBHOOK_MAX_CONCURRENT_PER_TENANT",
  requestSlots: "MAX_ACTIVE_REQUESTS",
  queuedPerTenant: "MAX_QUEUED_PER_TENANT",
};

/** Environment of `npm start`, parsed once with clear errors instead of NaN surprises. */
export interface ServerEnv {
  host: string;
  port: number;
  validateResponses: boolean;
  webhookRetryDelaysMs: number[];
  webhookTimeoutMs: number;
  /** Extra CA certificates (PEM file) trusted for https webhook receivers. */
  webhookCaFile: string | undefined;
  /** Loopback receivers allowed (the local-development exception). */
  webhookAllowLoopback: boolean;
  webhookMaxConcurrent: number;
  /** How long a shutdown waits for open requests before cutting them (and exiting 1). */
  shutdownGraceMs: number;
  webhookMaxConcurrentPerProject: number;
  simProcessingMs: number;
  fixturesScale: number | null;
  logLevel: string;
  responseCache: boolean;
  /** Slowloris defences (http/connection-limits.ts). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** null: as many as the descriptor limit allows, less a reserve. */
  maxConnections: number | null;
  maxConnectionsPerAddress: number;
  /** Origins allowed by CORS: ["*"] (default), [] (off), or a list. */
  corsOrigins: string[];
  /** Where state is kept (`SANDBOX_DATA_DIR`); undefined: memory only. */
  dataDir: string | undefined;
  /** PostgreSQL shared by several processes (`DATABASE_URL`); exclusive with dataDir. */
  databaseUrl: string | undefined;
  /**
   * Pooled connections per process (`DATABASE_POOL_SIZE`, default 6). Each process opens two more, which only
   * listen (changes, and attempts due): 8 per process, so ten fit within PostgreSQL's default max_connections of 100.
   */
  databasePoolSize: number;
  tenantLimits: TenantLimits;
}

/** See ServerEnv.databasePoolSize. */
export const DEFAULT_DATABASE_POOL_SIZE = 6;

function int(name: string, raw: string | undefined, fallback: number, min = 0): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  if (env.DATABASE_URL && env.SANDBOX_DATA_DIR) throw new Error("choose one store: DATABASE_URL (--database-url) or SANDBOX_DATA_DIR (--data-dir), not both");
  if (env.DATABASE_URL && !/^postgres(ql)?:\/\//.test(env.DATABASE_URL)) throw new Error(`DATABASE_URL must be a postgres:// or postgresql:// URL, got "${env.DATABASE_URL.replace(/:[^:@/]*@/, ":***@")}"`);
  const delays = (env.WEBHOOK_RETRY_DELAYS_MS ?? "10000,60000,300000").split(",").map((s, i) => int(`WEBHOOK_RETRY_DELAYS_MS[${i}]`, s.trim(), 0));
  return {
    host: env.HOST || "127.0.0.1",
    port: int("PORT", env.PORT, 4010),
    validateResponses: env.VALIDATE_RESPONSES === "1",
    webhookRetryDelaysMs: delays,
    webhookTimeoutMs: int("WEBHOOK_TIMEOUT_MS", env.WEBHOOK_TIMEOUT_MS, 10_000, 1),
    webhookCaFile: env.WEBHOOK_CA_FILE || undefined,
    webhookAllowLoopback: env.WEBHOOK_ALLOW_LOOPBACK !== "0",
    shutdownGraceMs: int("SHUTDOWN_GRACE_MS", env.SHUTDOWN_GRACE_MS, 10_000, 0),
    webhookMaxConcurrent: int("WEBHOOK_MAX_CONCURRENT", env.WEBHOOK_MAX_CONCURRENT, 64, 1),
    webhookMaxConcurrentPerProject: int("WEBHOOK_MAX_CONCURRENT_PER_PROJECT", env.WEBHOOK_MAX_CONCURRENT_PER_PROJECT, 8, 1),
    simProcessingMs: int("SIM_PROCESSING_MS", env.SIM_PROCESSING_MS, 1_000),
    fixturesScale: env.FIXTURES_SCALE ? int("FIXTURES_SCALE", env.FIXTURES_SCALE, 0, 1) : null,
    logLevel: env.LOG_LEVEL || "info",
    responseCache: env.RESPONSE_CACHE !== "0",
    headersTimeoutMs: int("HEADERS_TIMEOUT_MS", env.HEADERS_TIMEOUT_MS, 10_000, 1),
    requestTimeoutMs: int("REQUEST_TIMEOUT_MS", env.REQUEST_TIMEOUT_MS, 30_000, 1),
    maxConnections: env.MAX_CONNECTIONS ? int("MAX_CONNECTIONS", env.MAX_CONNECTIONS, 0, 1) : null,
    maxConnectionsPerAddress: int("MAX_CONNECTIONS_PER_ADDRESS", env.MAX_CONNECTIONS_PER_ADDRESS, 256, 1),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGIN),
    dataDir: env.SANDBOX_DATA_DIR || undefined,
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: int("DATABASE_POOL_SIZE", env.DATABASE_POOL_SIZE, DEFAULT_DATABASE_POOL_SIZE, 1),
    tenantLimits: Object.fromEntries(
      Object.entries(TENANT_LIMIT_ENV).map(([key, name]) => [key, int(name, env[name], DEFAULT_TENANT_LIMITS[key as keyof TenantLimits], 1)]),
    ) as unknown as TenantLimits,
  };
}
