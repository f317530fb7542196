/** Waiting and the windows within which an attempt may land: shared by the checks and the model. */

/** The seed's retry schedule and receiver timeout (Limits), the defaults wherever a service's own are not given. */
export const SEED_RETRY_DELAYS_MS = [10_000, 60_000, 300_000];
export const SEED_TIMEOUT_MS = 10_000;

export const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/** How far a retry may land from its configured delay: early by max(100 ms, 10%), late by max(250 ms, 20%). */
export const retryWindow = (delayMs: number): [number, number] => [delayMs - Math.max(100, delayMs * 0.1), delayMs + Math.max(250, delayMs * 0.2)];

/**
 * How far a retry may land from its delay inside a sequence: early as the retries check allows (max(100 ms, 10%)),
 * late by max(1 s, 50%). The retries check holds the schedule's precision on a quiet receiver; a sequence holds the
 * count, the order and the spacing while the service and the suite are busy with everything else the sequence did.
 */
export const sequenceWindow = (delayMs: number): [number, number] => [retryWindow(delayMs)[0], delayMs + Math.max(1_000, delayMs * 0.5)];

/**
 * How much earlier than `timeout + delay` after an unanswered attempt arrived its retry may come: a service may start
 * its receiver-timeout clock before it connects (its own TLS set-up, a certificate file read at every attempt), which
 * the receiver cannot see. A fifth of the timeout, at least 250 ms.
 */
export const timeoutSlack = (timeoutMs: number) => Math.max(250, timeoutMs * 0.2);

/**
 * How much earlier than its window a retry after an unanswered attempt may come: this process's stall reading that
 * attempt (`lagMs`), the clock a service may start before it connects (timeoutSlack), and on top of it as long as the
 * service left its API unanswered just before (`serviceSlowMs`): a busy service is slow to connect too, so the two add.
 * Kept from a run that failed a correct server: at a 2000 ms timeout and a 300 ms delay, with the service 395 ms slow,
 * its retry came 208 ms before the receiver timeout had run from the connection.
 */
export const timeoutEarly = (timeoutMs: number, lagMs: number, serviceSlowMs: number) => lagMs + timeoutSlack(timeoutMs) + serviceSlowMs;

/** What a retry's window allowed for, in a failure message: the suite's stalls, and the service's own slowness. */
export function stallWords(suiteMs: number, service: { ms: number; what: string }): string {
  const parts = [suiteMs > 0 ? `${suiteMs} ms this process's event loop stalled` : "", service.ms > 0 ? `${service.ms} ms the service had our requests unanswered meanwhile (the longest ${service.what})` : ""].filter(Boolean);
  return parts.length ? `, allowing for ${parts.join(" and ")}` : "";
}
