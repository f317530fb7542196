/**
 * Mounts every operation of generated/routes.ts on an Express router: authenticate (401), then validate
 * (415/413/400), then the handler (404 and the rest), then the response check against the contract when
 * enabled. The order is the contract's: no unauthenticated caller learns whether an id exists.
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { routes, type OperationId, type RouteDef } from "../../../generated/routes.ts";
import type { OpenApiDoc } from "../../../lib/openapi-ajv.ts";
import type { Projects } from "../stores/projects.ts";
import { authenticate } from "./auth.ts";
import { readJson } from "./body.ts";
import type { FaultRegistry } from "../faults/settings.ts";
import { applyFaults, type HeldRequests, Unanswered } from "./faults.ts";
import type { FairAdmission } from "./fair-admission.ts";
import { ApiError } from "./errors.ts";
import { ResponseCache } from "./response-cache.ts";
import { ResponseWriter, sendJson } from "./respond.ts";
import type { Ctx, Handlers } from "./types.ts";
import type { Journal } from "../stores/journal.ts";
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
  /** The store: each write runs as one change of it (stores/journal.ts). */
  journal: Journal;
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
/**
 * Bodies made from rows of PostgreSQL's tables on a shared store, which other processes change without this process's
 * data version knowing: never cached there.
 */
const FROM_TABLES = new Set(["listStudies", "getStudy", "listInterviews", "getInterview", "listChats", "getChat", "listChatMessages"]);
const DAY = 86_400_000;

/** Headers every response of a deprecated operation carries, errors included (the seed: "all its responses"). */
export const DEPRECATION_HEADERS: Record<string, string> = {
  Deprecation: "@1751328000",
  Sunset: "Wed, 01 Jul 2026 00:00:00 GMT",
  Link: '</api/v1/studies>; rel="successor-version"',
};

/** Node's query parser silently keeps malformed `%` escapes; a client sending them deserves a 400, not a garbled filter. */
function assertWellFormedQuery(url: string): void {
  const q = url.indexOf("?");
  if (q < 0) return;
  try {
    decodeURIComponent(url.slice(q + 1).replace(/\+/g, " "));
  } catch {
    throw new ApiError(400, "invalid_request_error", "Malformed URL encoding in the query string");
  }
}

export function buildRouter(options: RouterOptions): { router: Router; routes: RouteDef[] } {
  // Strict: `/v1/chats/` is not `/v1/chats`; a trailing slash is a 404 like any other unknown path.
  const router = express.Router({ caseSensitive: true, strict: true });
  const factory = new ValidatorFactory(options.doc);
  const writer = new ResponseWriter(options.doc, options.validateResponses);

  const table = new RouteTable();
  for (const route of routes) {
    const validate = factory.forRoute(route);
    const handler = options.handlers[route.operationId as OperationId] as (ctx: Ctx<OperationId>) => unknown;
    const writes = route.method !== "get" || WRITING_READS.has(route.operationId);
    const { journal } = options;
    table.add(route.method, route.expressPath, async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (route.deprecated) res.set(DEPRECATION_HEADERS);
        if (options.ready) await options.ready();
        // A project created through another process is found in the shared store's table at once.
        const project = await authenticate(req, route.auth === "public" ? "public" : "secret", (kind, key) => options.projects.byKey(kind, key));
        assertWellFormedQuery(req.originalUrl);
        const path = validate.path(req.params as Record<string, string>);
        const query = validate.query(req.query as Record<string, unknown>);
        const body = route.requestBody ? validate.body(await readJson(req, res, options.maxBodyBytes)) : undefined;
        await applyFaults(req, route, project, options.faults, options.timeoutHoldMs, options.held);
        // Work starts here (a delay above is held, not worked on): in the organisation's own queue when the process is busy.
        const admit = LONG_LIVED.has(route.operationId) ? undefined : async () => {
          if (!(await options.admission.enter(project.tenant, res))) throw new Unanswered();
        };
        // A write on a shared store is admitted once its turn among its organisation's changes has come (stores/journal.ts).
        const admitInTurn = writes && journal.shared ? admit : undefined;
        if (admit && !admitInTurn) await admit();
        let key: string | null = null;
        if (options.cache && CACHEABLE.has(route.operationId) && !(journal.shared && FROM_TABLES.has(route.operationId))) {
          // Usage windows start on a UTC day boundary, so the day number is enough to tell windows apart.
          const day = USES_WINDOWS.has(route.operationId) ? Math.floor(options.now() / DAY) : 0;
          key = `${project.id}|${project.dataVersion}|${day}|${req.originalUrl}`;
          const hit = options.cache.get(key);
          if (hit) return sendJson(res, hit.status, hit.body);
        }
        const ctx = { project, path, query, body, req } as unknown as Ctx<OperationId>;
        // A write is one change (on a shared store, one transaction of its own rows, beside every other's).
        const result = writes ? await journal.write(() => handler(ctx), project.tenant, admitInTurn) : await handler(ctx);
        // A handler that answered itself (the event stream) is not answered again.
        if (res.headersSent) return;
        const sent = writer.send(res, route, result as { status: number; body: unknown; headers?: Record<string, string> });
        if (key && sent && options.cache) options.cache.set(key, { status: (result as { status: number }).status, body: sent });
      } catch (err) {
        if (err instanceof Unanswered) return;
        next(err);
      }
    });
  }
  router.use(table.dispatch);
  return { router, routes };
}

type RouteHandler = (req: Request, res: Response, next: NextFunction) => unknown;

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
    const parts = req.path.split("/");
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
