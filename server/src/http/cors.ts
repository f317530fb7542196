/**
 * CORS, so a browser app can call the sandbox as it calls Prism. On by default for any origin; `--cors-origin`
 * (env CORS_ORIGIN) restricts it to a list, and `none` turns it off. Keys travel in headers the page sets itself (no
 * cookies, no credentials mode), so allowing any origin exposes nothing a page could not already send.
 *
 * A preflight (OPTIONS with Access-Control-Request-Method) on a path of the contract answers 204 with that path's
 * methods and the headers the API reads; any other OPTIONS is what it was before (405 with Allow, in the envelope).
 */
import type { Request, Response } from "express";
import { routeMethods } from "./route-methods.ts";

/** The request headers the API reads. */
const ALLOW_HEADERS = "authorization, content-type, x-public-key, last-event-id, prefer";
/** Response headers a page may read besides the simple ones. */
const EXPOSE_HEADERS = "Allow, Deprecation, Sunset, Link, Retry-After";

/**
 * Sets the CORS headers of a request from an allowed origin; true when it was a preflight, answered here (204). A
 * function, not a middleware: the app's one front middleware calls it (app.ts), with no closure per request.
 */
export function cors(origins: readonly string[], routes: ReadonlyArray<{ method: string; expressPath: string }>): (req: Request, res: Response) => boolean {
  const any = origins.includes("*");
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, "")));
  const methodsOf = routeMethods(routes);
  return (req, res) => {
    const origin = req.headers.origin;
    if (origins.length === 0 || typeof origin !== "string" || !(any || allowed.has(origin))) return false;
    res.setHeader("Access-Control-Allow-Origin", any ? "*" : origin);
    if (!any) res.append("Vary", "Origin");
    res.setHeader("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    if (req.method !== "OPTIONS" || req.headers["access-control-request-method"] === undefined) return false;
    const methods = methodsOf(req.path);
    if (methods.length === 0) return false;
    res.setHeader("Access-Control-Allow-Methods", methods.join(", "));
    res.setHeader("Access-Control-Allow-Headers", ALLOW_HEADERS);
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
    return true;
  };
}

/** `--cors-origin` / CORS_ORIGIN: `*` (the default), `none`, or a comma-separated list of origins (scheme://host[:port]). */
export function parseCorsOrigins(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === "" || raw.trim() === "*") return ["*"];
  if (raw.trim() === "none") return [];
  const list = raw.split(",").map((s) => s.trim()).filter(Boolean);
  for (const o of list) {
    let url: URL;
    try {
      url = new URL(o);
    } catch {
      throw new Error(`CORS_ORIGIN: "${o}" is not an origin (scheme://host[:port])`);
    }
    if (!/^https?:$/.test(url.protocol) || url.origin !== o.replace(/\/+$/, "")) throw new Error(`CORS_ORIGIN: "${o}" is not an origin (scheme://host[:port], http or https, no path)`);
  }
  return list;
}
