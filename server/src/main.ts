/**
 * `npm start`: the reference server on the embedded fixtures. The only file that listens.
 */
import pino from "pino";
import type { FixtureDataset } from "../../fixtures/types.ts";
import { Server as NetServer } from "node:net";
import { createHttpServer, idleConnections, limitsOf, openResponses } from "./http/connection-limits.ts";
import { createApp } from "./app.ts";
import { DataDirLocked } from "./stores/sqlite/backend.ts";
import { StoreUnavailable } from "./stores/backend.ts";
import { openStore } from "./stores/open.ts";
import type { Backend } from "./stores/backend.ts";
import { readDataset } from "./model/dataset.ts";
import { randomBytes } from "node:crypto";
import { readEnv } from "./config.ts";
import { stopWhenNpmParentExits } from "./parent-watch.ts";

const KEYS = [
  ["Acme", "svc_live_acme_0123456789abcdef0123456789abcdef", "pk_live_acme_0123456789abcdef0123456789abcdef"],
  ["Globex", "svc_live_globex_0123456789abcdef0123456789abcdef", "pk_live_globex_0123456789abcdef0123456789abcdef"],
];

async function main(): Promise<void> {
  let env;
  try {
    env = readEnv();
  } catch (err) {
    console.error(`Configuration error: ${(err as Error).message}`);
    process.exit(2);
  }
  // Keys never reach the logs.
  const logger = pino({ level: env.logLevel, redact: ["req.headers.authorization", 'req.headers["x-public-key"]'] });
  const started = performance.now();
  // Generated data is anchored at (about) now: shifting a million rows would cost seconds.
  const freshDataset = async (): Promise<FixtureDataset | undefined> => {
    if (env.fixturesScale === null) return env.databaseUrl ? readDataset() : undefined;
    const { generateDataset } = await import("../../fixtures/generate.ts");
    return generateDataset({ scale: env.fixturesScale, anchorMs: Date.now() });
  };
  const openBackend = async (data: FixtureDataset): Promise<Backend> =>
    openStore({
      databaseUrl: env.databaseUrl,
      postgres: {
        logger,
        poolSize: env.databasePoolSize,
        // Written by the first process only; every later one (and every restart) uses the stored values.
        initialMeta: {
          time_shift_ms: String(env.fixturesScale === null ? Date.now() - Date.parse(data.anchor) : 0),
          stream_epoch: randomBytes(5).toString("hex"),
          launch_token_secret: randomBytes(32).toString("hex"),
        },
      },
    });
  const build = (dataset: FixtureDataset | undefined, backend: Backend | undefined) =>
    createApp({
      backend,
      dataset,
      shiftTime: env.fixturesScale === null,
      logger,
      validateResponses: env.validateResponses,
      responseCache: env.responseCache,
      webhookRetryDelaysMs: env.webhookRetryDelaysMs,
      webhookTimeoutMs: env.webhookTimeoutMs,
      webhookCaFile: env.webhookCaFile,
      webhookAllowLoopback: env.webhookAllowLoopback,
      webhookMaxConcurrent: env.webhookMaxConcurrent,
      webhookMaxConcurrentPerProject: env.webhookMaxConcurrentPerProject,
      simProcessingMs: env.simProcessingMs,
      corsOrigins: env.corsOrigins,
      dataDir: env.dataDir,
      tenantLimits: env.tenantLimits,
    });
  const dataset = await freshDataset();
  let backend: Backend | undefined;
  if (env.databaseUrl) {
    try {
      backend = await openBackend(dataset!);
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) throw err;
      console.error(err.message);
      process.exit(2);
    }
  }
  let app;
  try {
    app = build(dataset, backend);
  } catch (err) {
    if (!(err instanceof DataDirLocked)) throw err;
    console.error(err.message);
    process.exit(2);
  }
  try {
    await app.ready();
  } catch (err) {
    console.error(`Cannot use the database at ${app.backend.dir}: ${(err as Error).message}`);
    await app.close().catch(() => {});
    process.exit(2);
  }
  const server = createHttpServer(app.listener, limitsOf(env));
  server.listen(env.port, env.host, () => printBanner(env.host, env.port, started, app));
  server.on("error", (err) => {
    console.error(`Cannot listen on ${env.host}:${env.port}: ${err.message}`);
    process.exit(1);
  });

  const stop = gracefulStop(server, app, logger, env.shutdownGraceMs);
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGHUP", () => stop("SIGHUP"));
  // `kill <npx pid>` reaches npm's shell, not this process: its exit is the signal (parent-watch.ts).
  stopWhenNpmParentExits(() => stop("parent exited"));
}

type App = ReturnType<typeof createApp>;

/** What a person starting the sandbox reads first: where it listens, the fixtures' keys, a first request, where state is kept. */
function printBanner(host: string, port: number, started: number, app: App): void {
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${port}/api`;
  const loadMs = Math.round(performance.now() - started);
  console.log(`Reference server ready in ${loadMs} ms: ${base}`);
  console.log(`API reference: ${base.replace(/\/api$/, "/docs")}`);
  for (const [name, key, pk] of KEYS) console.log(`  ${name.padEnd(7)} API key ${key}   public key ${pk}`);
  console.log(`Try: curl -H "Authorization: Bearer ${KEYS[0][1]}" ${base}/v1/chats`);
  if (app.backend.shared) {
    console.log(`State: shared in PostgreSQL ${app.backend.dir} (${app.restoredChanges} changes restored); health: /healthz, /readyz`);
  } else if (app.backend.durable) {
    const p = app.webhooks.pending();
    console.log(`State: kept in ${app.backend.dir} (${app.restoredChanges} changes restored; ${p.waiting + p.queued + p.inFlight} deliveries pending)`);
  } else {
    console.log("State: in memory only; it is lost when the sandbox stops. Keep it with --data-dir DIR (or SANDBOX_DATA_DIR)");
  }
}

/**
 * Graceful shutdown: stop accepting connections, let every request already received finish, and tell each
 * keep-alive client with `Connection: close` so its connection ends after the answer instead of being cut.
 * Past SHUTDOWN_GRACE_MS whatever is left is cut and the exit code is 1, so a supervisor sees a forced stop.
 * The responses in progress are read from the connections when a signal comes (openResponses): no request pays for
 * a shutdown that has not begun (issue #63).
 */
function gracefulStop(server: ReturnType<typeof createHttpServer>, app: App, logger: pino.Logger, graceMs: number): (signal: string) => void {
  const netClose = NetServer.prototype.close;
  let stopping = false;
  return (signal: string) => {
    // A second Ctrl-C (or signal) while draining: stop at once.
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting at once");
      process.exit(130);
    }
    stopping = true;
    // Every request received from now on is answered with Connection: close; before Express's own listener, which may
    // answer synchronously (cached bodies).
    server.prependListener("request", (_req, res) => {
      if (!res.headersSent) res.setHeader("Connection", "close");
    });
    logger.info({ signal, in_flight: openResponses(server).length }, "shutting down");
    const p = app.webhooks.pending();
    const deliveries = p.waiting + p.queued + p.inFlight;
    if (app.backend.durable) logger.info({ pending_deliveries: deliveries, data_dir: app.backend.dir }, `${deliveries} pending webhook deliveries are kept in the data dir and resume at the next start`);
    else logger.warn({ pending_deliveries: deliveries }, `${deliveries} pending webhook deliveries are lost: the sandbox keeps no state without --data-dir`);
    // Event streams never end by themselves: end them now (listeners reconnect with their Last-Event-ID).
    app.endStreams(true);
    for (const res of openResponses(server)) if (!res.headersSent) res.setHeader("Connection", "close");
    // net.Server's close, not http.Server's: the latter also cuts idle keep-alive connections at once, racing the
    // requests their clients are sending on them. Here each connection's next request is still answered, with
    // Connection: close, and idle connections end at their keep-alive timeout (shortened below).
    server.keepAliveTimeout = 500;
    // Connections already idle keep the timer they got when they went idle (5 s by default): re-arm it, so an idle
    // keep-alive connection (a client that polled just before the signal) ends within half a second too. Those that go
    // idle later (an event stream ended above, whose last bytes are still being written) are re-armed as they do: an
    // ended stream's connection otherwise stayed 1.5 s (measured), with its listener's 2 s promise at the edge.
    const armed = new WeakSet<object>();
    const rearm = () => {
      for (const socket of idleConnections(server)) {
        if (armed.has(socket)) continue;
        armed.add(socket);
        socket.setTimeout(500);
      }
    };
    rearm();
    setInterval(rearm, 50).unref();
    netClose.call(server, () => {
      app.close().then(() => {
        logger.info("stopped");
        process.exit(0);
      });
    });
    setTimeout(() => {
      logger.error({ in_flight: openResponses(server).length, grace_ms: graceMs }, "forced exit: requests still open after the grace period");
      process.exit(1);
    }, graceMs).unref();
  };
}

void main();
