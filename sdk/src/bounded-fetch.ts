/**
 * One attempt, bounded by `timeoutMs` (answer included) and by the caller's abort, with every failure to reach the
 * API turned into ApiConnectionError (or ApiTimeoutError) carrying the original error as `cause`.
 *
 * The bound does not depend on fetch honouring a signal: on Node 20 the signal fetch follows is weakly held and a
 * garbage collection loses it (see caller-signal.ts). The attempt races fetch against its own timer, held by Node's
 * timer list, and reads the body through a stream of its own, so the timer can end a body that stalls half-way by
 * cancelling the reader it holds (which also closes the connection). The signal given to fetch is only a courtesy
 * that lets undici release the socket sooner when it survives.
 */
import { callerSignalOf } from "./caller-signal.ts";
import { ApiConnectionError, ApiTimeoutError } from "./errors.ts";

/** Event streams are unbounded by design: the timeout covers them until their headers arrive. */
const isEventStream = (res: Response) => (res.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");

function connectionError(err: unknown, where: string): ApiConnectionError {
  // undici's "fetch failed" says little: the cause says why (a system code, or e.g. "bad port").
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new ApiConnectionError(`Could not reach the API for ${where}: ${cause?.code ?? cause?.message ?? (err as Error)?.message}`, { cause: err });
}

export function boundedFetch(inner: typeof fetch, timeoutMs: number): typeof fetch {
  return (input, init) => {
    const caller = callerSignalOf(input as RequestInfo, init);
    if (caller?.aborted) return Promise.reject(caller.reason);
    const request = new Request(input as RequestInfo, init);
    const where = `${request.method} ${request.url}`;
    const courtesy = new AbortController();

    return new Promise<Response>((resolve, reject) => {
      let phase: "headers" | "body" | "done" = "headers";
      let failBody: (err: unknown) => void = () => undefined;
      const finish = () => {
        phase = "done";
        clearTimeout(timer);
        caller?.removeEventListener("abort", onAbort);
      };
      const fail = (err: unknown) => {
        if (phase === "done") return;
        const was = phase;
        finish();
        if (was === "headers") reject(err);
        else failBody(err);
        courtesy.abort(err);
      };
      const onAbort = () => fail(caller!.reason);
      const timer = timeoutMs > 0 ? setTimeout(() => fail(new ApiTimeoutError(`No answer to ${where} within ${timeoutMs} ms`, { cause: new DOMException(`No answer within ${timeoutMs} ms`, "TimeoutError") })), timeoutMs) : undefined;
      // In Node, unref'd: a pending attempt's socket keeps the process alive, the timer need not (browsers have no unref).
      (timer as { unref?: () => void } | undefined)?.unref?.();
      caller?.addEventListener("abort", onAbort);

      inner(request, { signal: courtesy.signal }).then(
        (res) => {
          // An answer after the timeout or the abort: release its connection.
          if (phase === "done") return void res.body?.cancel().catch(() => undefined);
          if (!res.body) {
            finish();
            return resolve(res);
          }
          if (isEventStream(res)) clearTimeout(timer);
          phase = "body";
          const reader = res.body.getReader();
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              failBody = (err) => {
                controller.error(err);
                reader.cancel(err).catch(() => undefined);
              };
            },
            async pull(controller) {
              let chunk: ReadableStreamReadResult<Uint8Array>;
              try {
                chunk = await reader.read();
              } catch (err) {
                if (phase === "done") return;
                finish();
                return controller.error(connectionError(err, where));
              }
              if (phase === "done") return; // failed while the read was pending: the stream is already errored
              if (chunk.done) {
                finish();
                controller.close();
              } else controller.enqueue(chunk.value);
            },
            cancel(reason) {
              finish();
              return reader.cancel(reason);
            },
          });
          const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
          Object.defineProperties(out, { url: { value: res.url }, redirected: { value: res.redirected } });
          resolve(out);
        },
        (err) => {
          if (phase === "done") return;
          finish();
          reject(connectionError(err, where));
        },
      );
    });
  };
}
