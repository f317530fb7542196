/**
 * The mock's front door: serves the API under `/api`, as the service does, so a client team switches between the
 * mock, the reference server and the real service by changing the host only. Prism (which ignores the path part
 * of the server URL) listens on an internal port; requests to `/api/...` are forwarded with the prefix stripped,
 * and the root paths (`/v1/...`) keep working for clients of earlier versions.
 */
import { createServer, request, type Server } from "node:http";

const envelope = (status: number, type: string, message: string) => JSON.stringify({ error: { type, message } });

export function startFront(options: { host: string; port: number; prismPort: number }): Promise<Server> {
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    const path = url === "/api" || url.startsWith("/api/") || url.startsWith("/api?") ? url.slice(4) || "/" : url;
    const upstream = request({ host: "127.0.0.1", port: options.prismPort, method: req.method, path, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(503, { "content-type": "application/json" }).end(envelope(503, "api_error", "The mock is starting; try again in a moment"));
    });
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}
