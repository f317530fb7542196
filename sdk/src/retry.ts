/**
 * A fetch that retries what is safe to retry: idempotent methods (GET, HEAD, PUT, DELETE) on 429, 5xx and
 * network errors, with exponential backoff and full jitter, honouring `Retry-After` (seconds or an HTTP date).
 * POST is never retried: a lost answer to a write must not create it twice. The caller's abort ends the wait between
 * attempts too, and reaches each attempt as `init.signal`, read once from the call (see caller-signal.ts).
 */
import { callerSignalOf, sleepUnlessAborted } from "./caller-signal.ts";

export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const retriable = (status: number) => status === 429 || status >= 500;

function retryAfterMs(res: Response): number | null {
  const h = res.headers.get("retry-after");
  if (h === null) return null;
  if (/^\d+$/.test(h.trim())) return Number(h) * 1000;
  const at = Date.parse(h);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

export function retryingFetch(inner: typeof fetch, options: RetryOptions = {}): typeof fetch {
  const retries = options.retries ?? 2;
  const base = options.baseDelayMs ?? 200;
  const max = options.maxDelayMs ?? 5_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  const random = options.random ?? Math.random;

  return async (input, init) => {
    const signal = callerSignalOf(input as RequestInfo, init);
    const request = new Request(input as RequestInfo, init);
    const attemptInit = signal ? { signal } : undefined;
    if (!IDEMPOTENT.has(request.method.toUpperCase()) || retries === 0) return inner(request, attemptInit);
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(max, base * 2 ** attempt) * random();
      try {
        const res = await inner(request.clone(), attemptInit);
        if (!retriable(res.status) || attempt === retries) return res;
        const wait = retryAfterMs(res);
        await res.body?.cancel();
        await sleepUnlessAborted(sleep, Math.min(max, wait ?? backoff), signal);
      } catch (err) {
        // The caller's abort and a timeout are final; a refused or reset connection is worth another try.
        if (attempt === retries || signal?.aborted || (err as Error)?.name === "AbortError" || (err as Error)?.name === "ApiTimeoutError") throw err;
        await sleepUnlessAborted(sleep, backoff, signal);
      }
    }
  };
}
