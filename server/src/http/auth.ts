/**
 * Credentials. Keys are compared in constant time against every known key (no early exit on the first
 * match and no map lookup keyed by the secret), so response timing does not reveal key prefixes. Projects kept in
 * PostgreSQL's table are found by the key's SHA-256 (stores/postgres/projects.ts): an index walks digests, whose order
 * says nothing of the keys'.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import { unauthorized } from "./errors.ts";

export const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export class KeyRing<T> {
  private readonly entries: Array<{ hash: Buffer; value: T }> = [];

  add(key: string, value: T): void {
    this.entries.push({ hash: digest(key), value });
  }

  /** The value whose key equals `presented`, compared in constant time over equal-length digests. */
  find(presented: string): T | undefined {
    const h = digest(presented);
    let found: T | undefined;
    for (const e of this.entries) if (timingSafeEqual(h, e.hash)) found = e.value;
    return found;
  }
}

/** The scheme is case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer. */
const BEARER = /^Bearer ([^\s]+)$/i;

/**
 * The API key of `Authorization: Bearer svc_live_...`, or a 401 that says no more than the header's shape; null for a
 * key that cannot be one (no `svc_live_` prefix), answered as any unknown key.
 */
export function presentedApiKey(req: Request): string | null {
  const header = req.headers.authorization;
  if (header === undefined || header === "") throw unauthorized("Missing API key: send `Authorization: Bearer <API_KEY>`");
  const m = BEARER.exec(header);
  if (!m) throw unauthorized("Malformed Authorization header: expected `Bearer <API_KEY>`");
  return m[1].startsWith("svc_live_") ? m[1] : null;
}

/** The key of `X-Public-Key: pk_live_...` (null: not one), or a 401 when the header is missing. */
export function presentedPublicKey(req: Request): string | null {
  const key = req.headers["x-public-key"];
  if (typeof key !== "string" || key === "") throw unauthorized("Missing public key: send `X-Public-Key: <PUBLIC_SDK_KEY>`");
  return key.startsWith("pk_live_") ? key : null;
}

/**
 * The project a request's credentials name (stores/projects.ts finds it), or the 401: at once when the finder answers at
 * once (the embedded stores), a promise when it asks a database.
 */
export function authenticate<T>(req: Request, kind: "secret" | "public", projects: { byKey(kind: "secret" | "public", key: string): T | undefined | Promise<T | undefined> }): T | Promise<T> {
  const key = kind === "public" ? presentedPublicKey(req) : presentedApiKey(req);
  const found = key === null ? undefined : projects.byKey(kind, key);
  return found instanceof Promise ? found.then((p) => known(p, kind)) : known(found, kind);
}

function known<T>(project: T | undefined, kind: "secret" | "public"): T {
  if (!project) throw unauthorized(kind === "public" ? "Invalid public key" : "Invalid API key");
  return project;
}
