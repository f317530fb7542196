/**
 * `npm start`: the reference server on the embedded fixtures. The only file that listens.
 */
import pino from "pino";
import type { FixtureDataset } from "../../fixtures/types.ts";
import { createApp } from "./app.ts";
import { readEnv } from "./config.ts";

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
  let dataset: FixtureDataset | undefined;
  if (env.fixturesScale !== null) {
    const { generateDataset } = await import("../../fixtures/generate.ts");
    // Anchored at now: a million rows need no time shift at load.
    dataset = generateDataset({ scale: env.fixturesScale, anchorMs: Date.now() });
  }
  const app = createApp({
    dataset,
    // Generated data is already anchored at (about) now; shifting a million rows would cost seconds.
    shiftTime: env.fixturesScale === null,
    logger,
    validateResponses: env.validateResponses,
    responseCache: env.responseCache,
    webhookRetryDelaysMs: env.webhookRetryDelaysMs,
    webhookTimeoutMs: env.webhookTimeoutMs,
    webhookCaFile: env.webhookCaFile,
    simProcessingMs: env.simProcessingMs,
  });
  const server = app.app.listen(env.port, env.host, () => {
    const base = `http://${env.host.includes(":") ? `[${env.host}]` : env.host}:${env.port}/api`;
    const loadMs = Math.round(performance.now() - started);
    console.log(`Reference server ready in ${loadMs} ms: ${base}`);
    console.log(`API reference: ${base.replace(/\/api$/, "/docs")}`);
    for (const [name, key, pk] of KEYS) console.log(`  ${name.padEnd(7)} API key ${key}   public key ${pk}`);
    console.log(`Try: curl -H "Authorization: Bearer ${KEYS[0][1]}" ${base}/v1/chats`);
  });
  server.on("error", (err) => {
    console.error(`Cannot listen on ${env.host}:${env.port}: ${err.message}`);
    process.exit(1);
  });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    server.close(() => {
      app.close().then(() => process.exit(0));
    });
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

void main();
