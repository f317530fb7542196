/**
 * One line per request, at info, when its response is done or its connection is gone: method, URL, status, time and
 * whether the client left first. pino writes it; no child logger and no serialization of the whole request (its
 * headers, keys included) per request, which pino-http made and which cost a cached read 38% of its throughput at the
 * default log level (issue #63). Errors are logged apart, with their context, by app.ts's error handler.
 */
import type { RequestHandler } from "express";
import type { Logger } from "pino";

export function requestLog(logger: Logger): RequestHandler {
  let ids = 0;
  return (req, res, next) => {
    const reqId = ++ids;
    const started = performance.now();
    res.once("close", () => {
      const ms = Math.round((performance.now() - started) * 10) / 10;
      logger.info({ reqId, method: req.method, url: req.originalUrl, status: res.statusCode, ms, ...(res.writableFinished ? {} : { aborted: true }) }, "request completed");
    });
    next();
  };
}
