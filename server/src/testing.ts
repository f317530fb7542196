/**
 * Starts the real app on a free loopback port for tests and tools: `const srv = await startServer()`,
 * then talk HTTP to `srv.baseUrl` (`http://127.0.0.1:PORT/api`) and `await srv.close()`.
 */
import type { AddressInfo } from "node:net";
import { createApp, type App, type AppOptions } from "./app.ts";
import { readEnv } from "./config.ts";
import { createHttpServer, limitsOf } from "./http/connection-limits.ts";

export interface RunningServer {
  baseUrl: string;
  origin: string;
  app: App;
  close(): Promise<void>;
}

export async function startServer(options: AppOptions = {}): Promise<RunningServer> {
  const app = createApp(options);
  await app.ready();
  // The connection limits `npm start` has by default.
  const server = createHttpServer(app.listener, limitsOf(readEnv({}))).listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `${origin}/api`,
    origin,
    app,
    async close() {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
