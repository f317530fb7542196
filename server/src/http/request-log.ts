/**
 * One line per request, at info, when its response is done or its connection is gone: method, URL, status, time and
 * whether the client left first. pino writes it; no child logger and no serialization of the whole request (its
 * headers, keys included) per request, which pino-http made and which cost a cached read 38% of its throughput at the
 * default log level (issue #63). Called by the app's front listener for every request, before the fast lane and
 * Express alike (app.ts), so each request is logged once whichever answers it. Errors are logged apart, with their
 * context, by app.ts's error handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";

export function requestLog(logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  let ids = 0;
  return (req, res) => {
    const reqId = ++ids;
    const started = performance.now();
    // The URL as received: Express rewrites req.url for mounted layers, never the top-level one read here.
    const url = req.url;
    res.once("close", () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.info({ reqId, method: req.method, url, status: res.statusCode, ms, ...(res.writableFinished ? {} : { aborted: true }) }, "request completed");
    });
  };
}
