/**
 * createApp(options) builds the reference server's Express app; it never listens (main.ts does).
 * Everything time- or I/O-dependent is injectable so tests run the real app deterministically.
 */
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { assetPath } from "../../lib/assets.ts";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import type { FixtureDataset } from "../../fixtures/types.ts";
import { contractDoc } from "../../lib/openapi-ajv.ts";
import { systemClock, type Clock } from "./clock.ts";
import { experimentsHandlers } from "./handlers/experiments.ts";
import { chatsHandlers } from "./handlers/chats.ts";
import type { HandlerDeps } from "./handlers/deps.ts";
import { interviewsHandlers } from "./handlers/interviews.ts";
import { messagesHandlers } from "./handlers/messages.ts";
import { participantHandlers } from "./handlers/participant.ts";
import { releasesHandlers } from "./handlers/releases.ts";
import { simReleasesHandlers } from "./handlers/sim-releases.ts";
import { simulationHandlers } from "./handlers/simulation.ts";
import { simEventsHandlers } from "./handlers/sim-events.ts";
import { simFaultsHandlers } from "./handlers/sim-faults.ts";
import { simProjectsHandlers } from "./handlers/sim-projects.ts";
import { studiesHandlers } from "./handlers/studies.ts";
import { webhooksHandlers } from "./handlers/webhooks.ts";
import { isCorruptEncoding } from "./http/body.ts";
import { cors } from "./http/cors.ts";
import { requestLog } from "./http/request-log.ts";
import { HeldRequests } from "./http/faults.ts";
import { FairAdmission } from "./http/fair-admission.ts";
import { routeMethods } from "./http/route-methods.ts";
import { ApiError } from "./http/errors.ts";
import { ResponseCache } from "./http/response-cache.ts";
import { buildRouter } from "./http/router.ts";
import type { Handlers } from "./http/types.ts";
import { readDataset, shiftDataset } from "./model/dataset.ts";
import { openLocalStore } from "./stores/open.ts";
import { composeStores } from "./stores/compose.ts";
import { StoreUnavailable, type Backend } from "./stores/backend.ts";
import type { Store } from "./model/store.ts";
import type { EventStreams } from "./webhooks/event-stream.ts";
import { DEFAULT_TENANT_LIMITS, type TenantLimits } from "./model/tenant-limits.ts";
import { health } from "./http/health.ts";
import { simListenerHandlers } from "./handlers/sim-listener.ts";
import type { WebhookDispatcher } from "./webhooks/types.ts";

export interface AppOptions {
  /** Fixture data; default fixtures/data/default.json. Not mutated when `shiftTime` is false. */
  dataset?: FixtureDataset;
  /** Shift fixture timestamps so the dataset's anchor is the clock's now (default true). */
  shiftTime?: boolean;
  clock?: Clock;
  /** Check every success response against the contract (a violation is a 500 naming the field). Default true. */
  validateResponses?: boolean;
  webhookRetryDelaysMs?: number[];
  webhookTimeoutMs?: number;
  /** Extra CA certificates (PEM file) trusted for https webhook receivers, read at each attempt. */
  webhookCaFile?: string;
  /** Allow loopback webhook receivers, the local-development exception (default true). */
  webhookAllowLoopback?: boolean;
  /** Concurrent webhook deliveries, overall and per project (defaults 64 and 8). */
  webhookMaxConcurrent?: number;
  webhookMaxConcurrentPerProject?: number;
  simProcessingMs?: number;
  launchTokenTtlMs?: number;
  participantConfigTtlSeconds?: number;
  maxBodyBytes?: number;
  /** Replace handlers (tests use it to prove the response check catches a broken handler). */
  handlers?: Partial<Handlers>;
  /** Replace the webhook dispatcher. */
  webhooks?: WebhookDispatcher;
  /** Request logger; false (the default) logs nothing. */
  logger?: Logger | false;
  /** Cache serialized bodies of read-only operations (default true; see http/response-cache.ts). */
  responseCache?: boolean;
  /** How long a `timeout` fault leaves a request unanswered (default 30 s, the server's request timeout). */
  faultTimeoutHoldMs?: number;
  /** Origins a browser app may call the sandbox from (CORS): `["*"]`, the default, allows any; `[]` turns CORS off. */
  corsOrigins?: string[];
  /**
   * Keep every mutable thing in this directory (`--data-dir`): created projects, webhooks and secrets, planted data,
   * faults, events, the delivery log and pending deliveries, which resume at the next start. Absent: memory only.
   */
  dataDir?: string;
  /** Per-tenant limits (model/tenant-limits.ts); each one defaults to DEFAULT_TENANT_LIMITS. */
  tenantLimits?: Partial<TenantLimits>;
  /**
   * A store already opened (PostgreSQL: `PgBackend.open`, which is asynchronous); it wins over `dataDir`. With a
   * shared store, webhook attempts are claimed from the database (stores/postgres/deliveries.ts).
   */
  backend?: Backend;
}

export interface App {
  /** The Express app: every request the fast lane does not answer. */
  app: Express;
  /** What an HTTP server serves: the request log, the fast lane for cached reads, then `app` (router.ts). */
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  store: Store;
  webhooks: WebhookDispatcher;
  streams: EventStreams;
  /** Where state is kept: durable with a data dir, else memory. */
  backend: Backend;
  /**
   * Settles once the store is ready for requests (a shared store: the fixtures' studies, interviews and chats written to their tables);
   * requests that come first wait for it. Rejects when the database cannot be used.
   */
  ready(): Promise<void>;
  /** Store changes replayed from the data dir at start-up (0 without one, or on a fresh one). */
  restoredChanges: number;
  /**
   * Ends every open event stream (listeners reconnect). `final`, the first step of a shutdown: reconnections are
   * refused from then on, since an open stream would hold the shutdown open.
   */
  endStreams(final?: boolean): void;
  close(): Promise<void>;
}

const DOCS = assetPath("docs/");

export function createApp(options: AppOptions = {}): App {
  const clock = options.clock ?? systemClock;
  const backend: Backend = options.backend ?? openLocalStore(options.dataDir);
  const limits: TenantLimits = { ...DEFAULT_TENANT_LIMITS, ...options.tenantLimits };
  const dataset = options.dataset ?? readDataset();
  if (options.shiftTime !== false) {
    // With a data dir the fixtures keep the shift of the first start, so what was recorded against them still fits.
    const kept = backend.getMeta("time_shift_ms");
    const shift = kept === undefined ? clock.now() - Date.parse(dataset.anchor) : Number(kept);
    if (kept === undefined) backend.setMeta("time_shift_ms", String(shift));
    shiftDataset(dataset, shift);
  }
  // Every store's parts, built in the one place that knows its kind (stores/compose.ts).
  const addressPolicy = { allowLoopback: options.webhookAllowLoopback ?? true };
  const parts = composeStores(backend, {
    clock,
    dataset,
    limits,
    addressPolicy,
    retryDelaysMs: options.webhookRetryDelaysMs ?? [10_000, 60_000, 300_000],
    timeoutMs: options.webhookTimeoutMs ?? 10_000,
    caFile: options.webhookCaFile,
    maxConcurrent: options.webhookMaxConcurrent,
    maxConcurrentPerProject: options.webhookMaxConcurrentPerProject,
    simProcessingMs: options.simProcessingMs ?? 1_000,
    webhooks: options.webhooks,
    logger: options.logger || undefined,
  });
  const { store, projects, streams, faults, webhooks } = parts;
  const doc = contractDoc();
  // Launch tokens stay valid across restarts with a data dir: their key is kept there.
  let tokenKey = backend.getMeta("launch_token_secret");
  if (tokenKey === undefined) backend.setMeta("launch_token_secret", (tokenKey = randomBytes(32).toString("hex")));
  const deps: HandlerDeps = {
    store,
    projects,
    webhookSettings: parts.webhookSettings,
    listeners: parts.listeners,
    clock,
    webhooks,
    streams,
    faults,
    addressPolicy,
    runner: parts.runner,
    interviews: parts.interviews,
    studies: parts.studies,
    chats: parts.chats,
    releases: parts.releases,
    promptEvents: parts.promptEvents,
    backend,
    quotas: parts.quotas,
    launchTokenSecret: Buffer.from(tokenKey, "hex"),
    launchTokenTtlMs: options.launchTokenTtlMs ?? 15 * 60_000,
    participantConfigTtlSeconds: options.participantConfigTtlSeconds ?? 300,
  };
  const handlers: Handlers = {
    ...studiesHandlers(deps),
    ...interviewsHandlers(deps),
    ...releasesHandlers(deps),
    ...chatsHandlers(deps),
    ...messagesHandlers(deps),
    ...webhooksHandlers(deps),
    ...experimentsHandlers(deps),
    ...participantHandlers(deps),
    ...simulationHandlers(deps),
    ...simReleasesHandlers(deps),
    ...simEventsHandlers(deps),
    ...simFaultsHandlers(deps),
    ...simProjectsHandlers(deps),
    ...simListenerHandlers(deps),
    ...options.handlers,
  };
  const held = new HeldRequests(limits);
  // Several processes on one PostgreSQL: held requests count per tenant over all of them (and open streams: compose.ts).
  if (parts.sharedCounts) held.share(parts.sharedCounts);
  // Each process shares its own slots, work-conserving: nothing to tell the others (fair-admission.ts).
  const admission = new FairAdmission({ slots: limits.requestSlots, queuedPerTenant: limits.queuedPerTenant });
  const { dispatch, fast, routes } = buildRouter({
    doc,
    projects,
    handlers,
    validateResponses: options.validateResponses ?? true,
    maxBodyBytes: options.maxBodyBytes ?? 100 * 1024,
    // None on a shared store: its bodies are rows that change without this process's data version knowing.
    cache: options.responseCache === false || backend.shared ? null : new ResponseCache(),
    now: () => clock.now(),
    faults,
    timeoutHoldMs: options.faultTimeoutHoldMs ?? 30_000,
    held,
    backend,
    ready: parts.ready,
    admission,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "simple");
  // Every request passes one middleware before the API (each Express layer costs every request): nosniff, CORS, the
  // Host check and OPTIONS. Never let a browser sniff a JSON or text answer into something it would run.
  // OPTIONS is no operation of the contract: answered like any other method a path does not have (405 with
  // Allow, in the envelope), before Express's router would answer it in plain text.
  // HTTP/1.1 requires Host (RFC 9112 §3.2); Node is told not to refuse it itself, so the answer is in the envelope.
  // The API itself is dispatched from here too (router.ts), ahead of every other layer: Express walks its layers one by
  // one for every request (issue #63).
  const corsHeaders = cors(options.corsOrigins ?? ["*"], routes);
  const notAllowed = methodNotAllowed(routes);
  app.use(((req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (corsHeaders(req, res)) return;
    if (!req.headers.host) return next(new ApiError(400, "invalid_request_error", "Missing Host header"));
    if (req.method === "OPTIONS") return notAllowed(req, res, next);
    return dispatch(req, res, next);
  }) as RequestHandler);
  app.use(health(backend));
  // The reference page and its bundle only: nothing else of docs/ (its tests, screenshots) is served. After the API,
  // so no API request is matched against them.
  if (existsSync(DOCS)) {
    app.get(["/docs", "/docs/", "/docs/index.html"], (_req, res) => res.sendFile("index.html", { root: DOCS }));
    app.get("/docs/redoc.standalone.js", (_req, res) => res.sendFile("redoc.standalone.js", { root: DOCS }));
  }
  app.use(notAllowed);
  app.use(((req, _res, next) => next(new ApiError(404, "not_found_error", `No such route: ${req.method} ${req.path}`))) as RequestHandler);
  app.use(errorHandler(options.logger || undefined));

  // What the HTTP server calls for every request: its log line (unless info is not logged), then the fast lane for a
  // cached read, else Express (router.ts).
  const log = options.logger && options.logger.isLevelEnabled("info") ? requestLog(options.logger) : null;
  const express_ = app as unknown as (req: IncomingMessage, res: ServerResponse) => void;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    log?.(req, res);
    fast(req, res, express_);
  };

  return {
    app,
    listener,
    store,
    webhooks,
    streams,
    backend,
    restoredChanges: parts.restoredChanges,
    ready: parts.ready ?? (() => Promise.resolve()),
    endStreams: (final = false) => streams.closeAll(final),
    close: async () => {
      await parts.close();
      backend.close();
    },
  };
}

/** A known path with another method is a 405 with `Allow`, not a 404. */
function methodNotAllowed(routes: Array<{ method: string; expressPath: string }>): RequestHandler {
  const methodsOf = routeMethods(routes);
  return (req, res, next) => {
    const allowed = methodsOf(req.path);
    if (allowed.length === 0) return next();
    const allow = allowed.join(", ");
    res.set("Allow", allow);
    next(new ApiError(405, "method_not_allowed_error", `Method ${req.method} is not allowed on ${req.path}; allowed: ${allow}`));
  };
}

/** Every error, including body-parser failures and bugs, leaves in the envelope: never HTML, never a stack trace. */
function errorHandler(logger?: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if (err?.type === "entity.parse.failed") e = new ApiError(400, "invalid_request_error", "Malformed JSON body");
    else if (err?.type === "entity.too.large") e = new ApiError(413, "payload_too_large_error", `Request body exceeds ${err.limit} bytes`);
    else if (err?.type === "encoding.unsupported" || err?.type === "charset.unsupported") e = new ApiError(415, "unsupported_media_type_error", "Unsupported body encoding");
    else if (err?.type === "request.aborted") e = new ApiError(400, "invalid_request_error", "Request aborted");
    else if (isCorruptEncoding(err)) e = new ApiError(400, "invalid_request_error", "Corrupt or truncated compressed body");
    else if (err instanceof URIError) e = new ApiError(400, "invalid_request_error", "Malformed URL encoding");
    // PostgreSQL stopped or restarting: try again shortly. The driver's message (the database's address) is for the
    // log only.
    else if (err instanceof StoreUnavailable) e = new ApiError(503, "api_error", "Service unavailable: the service is briefly unavailable; retry after a second", undefined, { "Retry-After": "1" }).loggedAs("warn", "store unavailable", err.message);
    else {
      logger?.error({ err, path: req.path }, "unhandled error");
      e = new ApiError(500, "api_error", "Internal server error");
    }
    // A 5xx the sandbox meant (an injected fault, a refusal while stopping) is logged at its own level and message,
    // so "server error" at error level is only ever a real failure.
    if (e.expected) logger?.[e.expected.level]({ status: e.status, message: e.message, path: req.path, ...(e.expected.detail ? { detail: e.expected.detail } : {}) }, e.expected.message);
    else if (e.status >= 500) logger?.error({ message: e.message, path: req.path }, "server error");
    if (res.headersSent) return res.end();
    // A body still arriving (a 401 is answered before any body is read) is never waited for: the connection closes
    // after the answer, so a slow body sent without a key cannot hold a connection slot.
    if (!req.complete) res.set("Connection", "close");
    res.set(e.headers).status(e.status).type("application/json").send(JSON.stringify(e.envelope));
  };
}
