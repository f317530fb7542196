/**
 * The simulation surface is optional and may be partial: an implementation can offer some `/_sim` operations and not
 * others. A missing one (404 or 405 to an authenticated call) makes what needs it NOT TESTED, never a failure.
 */
import type { Ctx } from "./check.ts";

const probed = new WeakMap<object, Map<string, Promise<boolean>>>();

/** Whether `GET path` (a simulation read) exists on this implementation; asked once per run. */
export function simReadOffered(ctx: Ctx, path: string): Promise<boolean> {
  if (!probed.has(ctx.http)) probed.set(ctx.http, new Map());
  const cache = probed.get(ctx.http)!;
  if (!cache.has(path)) cache.set(path, ctx.http.req(`${path}${path.includes("?") ? "&" : "?"}limit=1`).then((r) => r.status !== 404 && r.status !== 405));
  return cache.get(path)!;
}

/** A status that says the operation does not exist here (as opposed to an answer from it). */
export const missingOperation = (status: number) => status === 404 || status === 405;
