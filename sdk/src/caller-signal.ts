/**
 * The caller's own AbortSignal, held strongly from the call to its end.
 *
 * On Node 20 a signal that reaches fetch through a Request (`new Request(url, {signal})`, `Request.clone()`,
 * `AbortSignal.any`) is followed through a weakly held controller: a garbage collection drops the link, and the
 * abort never arrives (a long-running application collects all the time). So the client never relies on that link:
 * openapi-fetch builds its Request with CallerRequest, which keeps the caller's signal itself, and every layer
 * below reads it from there (or from `init.signal`) and listens on it directly.
 */
const CALLER = Symbol("callerSignal");

export class CallerRequest extends Request {
  readonly [CALLER]: AbortSignal | undefined;

  constructor(input: RequestInfo | URL, init?: RequestInit) {
    super(input, init);
    this[CALLER] = init?.signal ?? (input instanceof CallerRequest ? input[CALLER] : undefined);
  }
}

/** The signal the caller gave: `init.signal`, else the one a CallerRequest kept, else the Request's own. */
export function callerSignalOf(input: RequestInfo | URL, init?: RequestInit): AbortSignal | undefined {
  if (init?.signal) return init.signal;
  if (input instanceof CallerRequest) return input[CALLER];
  return input instanceof Request ? input.signal : undefined;
}

/** Waits `ms` through `sleep`, or rejects with the signal's reason as soon as it aborts. */
export function sleepUnlessAborted(sleep: (ms: number) => Promise<void>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    sleep(ms).then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
