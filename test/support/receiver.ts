/**
 * The tests' webhook receiver: a loopback server that records every request (its bytes, headers, arrival and when its
 * connection closed) and answers as told: a status, a delay, a hang, a destroyed socket.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  /** 1-based arrival number. */
  n: number;
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  /** performance.now() when the request (headers and body) had fully arrived. */
  at: number;
  /** performance.now() when the server side of the connection closed; null while open. */
  closedAt: number | null;
}

/** Answers request number `n`; may leave the response open (hang) or destroy the socket. */
export type Behaviour = (n: number, req: IncomingMessage, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

export const answer = (status: number, body = "") => (_n: number, _req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(status, { "content-type": "text/plain" }).end(body);
};

export async function startReceiver(behaviour: Behaviour): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const onSocket = new WeakMap<import("node:net").Socket, ReceivedRequest[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const record: ReceivedRequest = {
        n: requests.length + 1, method: req.method ?? "", path: req.url ?? "", headers: req.headers,
        body: Buffer.concat(chunks), at: performance.now(), closedAt: null,
      };
      requests.push(record);
      // One listener per connection, stamping every request it carried: one per request piled up on a kept-alive
      // connection past node's limit of ten (a MaxListenersExceededWarning in CI, 2026-12-08).
      let carried = onSocket.get(req.socket);
      if (!carried) {
        const list: ReceivedRequest[] = [];
        onSocket.set(req.socket, (carried = list));
        req.socket.once("close", () => {
          for (const r of list) r.closedAt = performance.now();
        });
      }
      carried.push(record);
      behaviour(record.n, req, res);
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nobody listens on: bound once to get a number, then released. */
export async function closedPort(): Promise<number> {
  const r = await startReceiver(answer(200));
  await r.close();
  return r.port;
}
