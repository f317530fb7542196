/**
 * Mounts every operation of generated/routes.ts on an Express router: authenticate (401), then validate
 * (415/413/400), then the handler (404 and the rest), then the response check against the contract when
 * enabled. The order is the contract's: no unauthenticated caller learns whether an id exists.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { routes, type OperationId, type RouteDef } from "../../../generated/routes.ts";
import type { OpenApiDoc } from "../../../lib/openapi-ajv.ts";
import type { Projects } from "../stores/projects.ts";
import { authenticate } from "./auth.ts";
import { readJson } from "./body.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import { applyFaults, type HeldRequests, Unanswered } from "./faults.ts";
import type { FairAdmission, Ticket } from "./fair-admission.ts";
import { ApiError } from "./errors.ts";
import { ResponseCache } from "./response-cache.ts";
import { ResponseWriter, sendJson } from "./respond.ts";
import type { Ctx, Handlers } from "./types.ts";
import type { Backend } from "../stores/backend.ts";
import { ValidatorFactory } from "./validate.ts";

export interface RouterOptions {
  doc: OpenApiDoc;
  /** Finds the project a request's key names (stores/projects.ts). */
  projects: Projects;
  handlers: Handlers;
  validateResponses: boolean;
  maxBodyBytes: number;
  /** Cache serialized bodies of read-only operations (response-cache.ts); null turns it off. */
  cache: ResponseCache | null;
  /** `now` for the cache key of operations whose bodies depend on the current week and month. */
  now: () => number;
  /** Faults on demand (http/faults.ts). */
  faults: FaultRegistry;
  /** How long a `timeout` fault leaves a request unanswered before closing the connection. */
  timeoutHoldMs: number;
  /** Requests held by a delay, capped per tenant and per address. */
  held: HeldRequests;
  /** The store: each write runs as one change of it (stores/backend.ts). */
  backend: Backend;
  /** What every request waits for first (a shared store: the fixtures written to their tables). */
  ready?: () => Promise<void>;
  /** Fair shares of the process's work between organisations (fair-admission.ts). */
  admission: FairAdmission;
}

/** Operations that hold their response open for as long as the client listens: never counted as work in progress. */
const LONG_LIVED = new Set(["simStreamEvents"]);

/** Reads that write (the listener secret is made on first use). */
const WRITING_READS = new Set(["simGetListener"]);

/** Read-only operations whose body depends only on the project's data (and, for some, the usage windows). */
const CACHEABLE = new Set(["listStudies", "getStudy", "listInterviews", "getInterview", "listReleases", "getRelease", "listChats", "getChat", "listChatMessages"]);
const USES_WINDOWS = new Set(["listStudies", "getStudy"]);
const DAY = 86_400_000;
/** URLs whose validated parameters each operation keeps (all forgotten at once past it: a flood of new URLs costs a clear). */
const VALIDATED_URLS = 512;
/** URLs of cacheable reads the fast lane knows (forgotten all at once past it, as above). */
const HOT_URLS = 2_048;

/** Headers every response of a deprecated operation carries, errors included (the seed: "all its responses"). */
export const DEPRECATION_HEADERS: Record<string, string> = {
  Deprecation: "@1751328000",
  Sunset: "Wed, 01 Jul 2026 00:00:00 GMT",
  Link: '</api/v1/studies>; rel="successor-version"',
};

/** Node's query parser silently keeps malformed `%` escapes; a client sending them deserves a 400, not a garbled filter. */
function assertWellFormedQuery(url: string): void {
  const q = url.indexOf("?");
  // Only a `%` can be malformed (most queries have none: no decoding for them).
  if (q < 0 || url.indexOf("%", q) < 0) return;
  try {
    decodeURIComponent(url.slice(q + 1).replace(/\+/g, " "));
  } catch {
    throw new ApiError(400, "invalid_request_error", "Malformed URL encoding in the query string");
  }
}

/**
 * The API's operations under `/api`, as one Express middleware (`dispatch`): a request whose path is none of them goes
 * on to the next layer. Strict and case-sensitive, prefix included: `/v1/chats/` is not `/v1/chats`, nor `/API/...`
 * `/api/...`; a trailing slash is a 404 like any other unknown path. Not an Express Router mounted at `/api`: its
 * prefix trimming and layer walk cost every request (issue #63).
 */
export function buildRouter(options: RouterOptions): { dispatch: RouteHandler; fast: FastLane; routes: RouteDef[] } {
  const factory = ValidatorFactory.of(options.doc);
  const writer = new ResponseWriter(options.doc, options.validateResponses);
  // The fast lane serves cached bodies on the embedded stores only: a shared store's requests wait for its readiness
  // and read their projects and faults from the database.
  const lane = options.cache && !options.ready ? new HotUrls() : null;

  const table = new RouteTable();
  for (const route of routes) {
    const validate = factory.forRoute(route);
    const handler = options.handlers[route.operationId as OperationId] as (ctx: Ctx<OperationId>) => unknown;
    const writes = route.method !== "get" || WRITING_READS.has(route.operationId);
    const { backend } = options;
    const admitted = !LONG_LIVED.has(route.operationId);
    const validated = route.requestBody ? null : new Map<string, Readonly<{ path: Record<string, string>; query: Record<string, unknown> }>>();
    const cacheable = CACHEABLE.has(route.operationId) && route.auth !== "public" && !route.deprecated;
    const usesWindows = USES_WINDOWS.has(route.operationId);
    table.add(route.method, route.expressPath, async (req: Request, res: Response, next: NextFunction) => {
      // Every step below is synchronous where its work is (the embedded stores): a value is awaited only when it is a
      // promise, since each await is a turn of the microtask queue and a promise for every request (issue #63).
      const slot: { ticket: Ticket | null } = { ticket: null };
      try {
        if (route.deprecated) res.set(DEPRECATION_HEADERS);
        if (options.ready) await options.ready();
        // A project created through another process is found in the shared store's table at once.
        const found = authenticate(req, route.auth === "public" ? "public" : "secret", options.projects);
        const project = found instanceof Promise ? await found : found;
        // Path and query parameters are a pure function of the URL: a URL this operation has accepted is not parsed and
        // validated again (its results are frozen, so nothing can change what the next request gets).
        let params = validated?.get(req.url);
        if (!params) {
          assertWellFormedQuery(req.originalUrl);
          params = Object.freeze({ path: Object.freeze(validate.path(req.params as Record<string, string>)), query: Object.freeze(validate.query(req.query as Record<string, unknown>)) });
          if (validated) {
            if (validated.size >= VALIDATED_URLS) validated.clear();
            validated.set(req.url, params);
          }
        }
        const { path, query } = params;
        // A cacheable read whose URL was accepted: the fast lane may answer its next hits (no body, no fault asked).
        if (lane && cacheable && route.method === "get") lane.add(req.url, usesWindows);
        const body = route.requestBody ? validate.body(await readJson(req, res, options.maxBodyBytes)) : undefined;
        const faulted = applyFaults(req, route, project, options.faults, options.timeoutHoldMs, options.held);
        if (faulted) await faulted;
        // Work starts here (a delay above is held, not worked on): in the organisation's own queue when the process is busy.
        // A write on a shared store is admitted once its turn among its organisation's changes has come (stores/backend.ts).
        const admitInTurn = admitted && writes && backend.shared ? async () => {
          const t = options.admission.enter(project.tenant, res);
          slot.ticket = t instanceof Promise ? await t : t;
          if (!slot.ticket) throw new Unanswered();
        } : undefined;
        if (admitted && !admitInTurn) {
          const t = options.admission.enter(project.tenant, res);
          slot.ticket = t instanceof Promise ? await t : t;
          if (!slot.ticket) return;
        }
        let key: string | null = null;
        if (options.cache && CACHEABLE.has(route.operationId)) {
          // Usage windows start on a UTC day boundary, so the day number is enough to tell windows apart.
          const day = USES_WINDOWS.has(route.operationId) ? Math.floor(options.now() / DAY) : 0;
          key = `${project.id}|${project.dataVersion}|${day}|${req.originalUrl}`;
          const hit = options.cache.get(key);
          if (hit) return sendJson(res, hit.status, hit.body);
        }
        const ctx = { project, path, query, body, req } as unknown as Ctx<OperationId>;
        // A write is one change (on a shared store, one transaction of its own rows, beside every other's).
        const made = writes ? backend.write(() => handler(ctx), project.tenant, admitInTurn) : handler(ctx);
        const result = made instanceof Promise ? await made : made;
        // A handler that answered itself (the event stream) is not answered again.
        if (res.headersSent) return;
        const sent = writer.send(res, route, result as { status: number; body: unknown; headers?: Record<string, string> });
        if (key && sent && options.cache) options.cache.set(key, { status: (result as { status: number }).status, body: sent });
      } catch (err) {
        if (err instanceof Unanswered) return;
        next(err);
      } finally {
        // The work is done (answered, or the error answered above): the slot goes back.
        slot.ticket?.done();
      }
    });
  }
  const fast: FastLane = (req, res, otherwise) => {
    const entry = lane && req.method === "GET" ? lane.get(req.url!) : undefined;
    const project = entry ? quietProject(req, options) : undefined;
    if (!entry || !project) return otherwise(req, res);
    const keyOf = () => `${project.id}|${project.dataVersion}|${entry.usesWindows ? Math.floor(options.now() / DAY) : 0}|${req.url}`;
    const first = options.cache!.get(keyOf());
    if (!first) return otherwise(req, res);
    let ticket: Ticket | null | Promise<Ticket | null>;
    try {
      ticket = options.admission.enter(project.tenant, res);
    } catch {
      // The organisation's queue is full: Express's path answers the 429 in the envelope.
      return otherwise(req, res);
    }
    // `hit`: the body when admitted, or undefined when it changed meanwhile (the full path makes the new one).
    const serve = (t: Ticket | null, hit: typeof first | undefined) => {
      if (!t) return;
      t.done();
      if (!hit) return otherwise(req, res);
      res.setHeader("X-Content-Type-Options", "nosniff");
      sendJson(res as Response, hit.status, hit.body);
    };
    if (!(ticket instanceof Promise)) return serve(ticket, first);
    // Admitted in its organisation's turn, or gone (null): the body is looked up again, as it may have changed.
    ticket
      .then((t) => serve(t, t ? options.cache!.get(keyOf()) : undefined))
      .catch(() => {
        // Nothing of this request is left to answer it with (its socket failed while it was written): end it.
        res.destroy();
      });
  };
  return { dispatch: table.dispatch, fast, routes };
}

/**
 * The front of the app (app.ts), ahead of Express: a GET of a URL the API has answered from its response cache before,
 * whose body is cached now, is answered here with the same bytes and headers, after the same authentication and
 * admission; anything else (another method, a CORS origin, a `Prefer` fault, a project with fault settings, a miss,
 * an unknown or refused key, a URL never validated) goes to `otherwise`, Express's app. Express's own walk of a request
 * (its prototypes, router and `next` closures) cost more than the cached answer itself (issue #63, BENCHMARKS.md).
 */
export type FastLane = (req: IncomingMessage, res: ServerResponse, otherwise: (req: IncomingMessage, res: ServerResponse) => void) => void;

/** URLs of the cacheable reads, with whether their bodies depend on the usage windows. */
class HotUrls {
  private readonly urls = new Map<string, { usesWindows: boolean }>();

  add(url: string, usesWindows: boolean): void {
    if (this.urls.has(url)) return;
    if (this.urls.size >= HOT_URLS) this.urls.clear();
    this.urls.set(url, { usesWindows });
  }

  get(url: string): { usesWindows: boolean } | undefined {
    return this.urls.get(url);
  }
}

/** The request's project when its key is known at once and nothing of the request asks for more than a cached read. */
function quietProject(req: IncomingMessage, options: RouterOptions) {
  const h = req.headers;
  if (h.origin !== undefined || h.prefer !== undefined || !h.host) return undefined;
  let found;
  try {
    found = authenticate(req as Request, "secret", options.projects);
  } catch {
    return undefined;
  }
  if (found instanceof Promise || !options.faults.quiet(found.id)) return undefined;
  return found;
}

type RouteHandler = (req: Request, res: Response, next: NextFunction) => unknown;

/** Where the API is served (the contract's server URL's path), with the slash that must follow it. */
const PREFIX = "/api/";

/**
 * The operations' paths, matched as Express's strict, case-sensitive routing matches them (first registered wins,
 * `:param` is one non-empty segment, percent-decoded; a URIError becomes the envelope's 400), in one middleware:
 * Express walks its route layers one by one for every request, which cost a tenth of a cached answer's time.
 * HEAD is answered by the GET route, as Express does (Node sends no body for HEAD).
 */
class RouteTable {
  /** method -> segment count -> routes in registration order. */
  private readonly byMethod = new Map<string, Map<number, Array<{ segments: Array<string | { param: string }>; handle: RouteHandler }>>>();

  add(method: string, path: string, handle: RouteHandler): void {
    const segments = path.split("/").map((s) => (s.startsWith(":") ? { param: s.slice(1) } : s));
    const verb = method.toUpperCase();
    let bySize = this.byMethod.get(verb);
    if (!bySize) this.byMethod.set(verb, (bySize = new Map()));
    let list = bySize.get(segments.length);
    if (!list) bySize.set(segments.length, (list = []));
    list.push({ segments, handle });
  }

  readonly dispatch = (req: Request, res: Response, next: NextFunction): unknown => {
    const path = req.path;
    if (!path.startsWith(PREFIX)) return next();
    // "/api/v1/studies" -> ["", "v1", "studies"], as the routes' paths split.
    const parts = path.slice(PREFIX.length - 1).split("/");
    const candidates = this.byMethod.get(req.method === "HEAD" ? "GET" : req.method)?.get(parts.length);
    if (!candidates) return next();
    outer: for (const { segments, handle } of candidates) {
      let params: Record<string, string> | undefined;
      for (let i = 0; i < segments.length; i++) {
        const want = segments[i];
        if (typeof want === "string") {
          if (want !== parts[i]) continue outer;
        } else {
          if (parts[i] === "") continue outer;
          (params ??= {})[want.param] = parts[i];
        }
      }
      try {
        if (params) for (const key of Object.keys(params)) params[key] = decodeURIComponent(params[key]);
      } catch (err) {
        return next(err);
      }
      req.params = params ?? {};
      return handle(req, res, next);
    }
    return next();
  };
}
