/**
 * Holding the API up under slow or abundant connections (slowloris):
 * - a request's headers must arrive within `headersTimeout` (10 s) and the whole request within `requestTimeout`
 *   (30 s), checked every second; Node's defaults (60 s and a 30 s check) let one attacker hold a slot for a minute;
 * - at most `maxConnections` open connections, below the process's descriptor limit minus a reserve for webhook
 *   deliveries, files and the listener itself, so the process never runs out of descriptors; past it, the oldest
 *   connection without a request in progress makes room (see limitConnections);
 * - at most `maxPerAddress` open connections from one address, so one client cannot take every slot.
 * A connection over the per-address cap is closed at once: nothing is read from it and it holds no descriptor.
 */
import { readFileSync } from "node:fs";
import { createServer, type RequestListener, type Server, type ServerOptions, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ServerEnv } from "../config.ts";
import { Counter } from "../model/tenant-limits.ts";
import { envelopeClientErrors } from "./client-errors.ts";

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  maxPerAddress: number;
}

/**
 * Descriptors kept free for everything that is not an inbound connection (deliveries, files, the listener): a
 * quarter of the limit, at most 256 (so 1024 descriptors allow 768 connections, 256 allow 192).
 */
export const descriptorReserve = (limit: number) => Math.min(256, Math.ceil(limit / 4));

/** The soft RLIMIT_NOFILE of this process (Linux reads /proc; elsewhere null). */
export function descriptorLimit(): number | null {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = line?.split(/\s{2,}/)[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/** The connection cap: the configured one, never above the descriptor limit less the reserve. */
export function connectionCap(configured: number | null, limit = descriptorLimit()): number {
  const ceiling = limit === null ? 10_000 : Math.max(16, limit - descriptorReserve(limit));
  return Math.min(configured ?? ceiling, ceiling);
}

export function serverOptions(limits: ConnectionLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: 1_000,
    // Requests without Host reach the app, which answers them in the envelope (see app.ts).
    requireHostHeader: false,
  };
}

/**
 * Applies the global and per-address caps to a listening server. When every slot is taken, a new connection evicts the
 * oldest connection that has no request in progress (one still trickling its headers, or idle between keep-alive
 * requests) rather than being refused: under slowloris from many addresses the slowest unfinished connections go, and
 * ordinary requests, which finish their headers at once, get in. Connections with a request in progress (an event
 * stream, a held request) are never evicted; when only those are left, the new connection is closed.
 */
/** Every counted connection of a server with its address, oldest first (a Map keeps insertion order). */
const countedOf = new WeakMap<Server, Map<Socket, string>>();

// Node's HTTP server sets `_httpMessage` on a socket while a response is open (from the moment its request's
// headers are parsed until the response finishes): a socket without one is still sending its headers, or idle.
const inProgress = (socket: Socket) => Boolean((socket as Socket & { _httpMessage?: unknown })._httpMessage);

/** The server's open connections with no request in progress (a shutdown shortens their keep-alive). */
export function idleConnections(server: Server): Socket[] {
  return [...(countedOf.get(server)?.keys() ?? [])].filter((s) => !inProgress(s));
}

/** The responses in progress on the server's connections (a shutdown tells each one's client to close after it). */
export function openResponses(server: Server): ServerResponse[] {
  const open: ServerResponse[] = [];
  for (const socket of countedOf.get(server)?.keys() ?? []) {
    const res = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (res) open.push(res);
  }
  return open;
}

export function limitConnections(server: Server, limits: ConnectionLimits): void {
  const perAddress = new Counter(limits.maxPerAddress);
  const counted = new Map<Socket, string>();
  countedOf.set(server, counted);
  const release = (socket: Socket) => {
    const address = counted.get(socket);
    if (address === undefined) return;
    counted.delete(socket);
    perAddress.give(address);
  };
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "unknown";
    if (!perAddress.take(address)) {
      socket.destroy();
      return;
    }
    // Only when the server is full is a socket's state read, so ordinary requests pay nothing for this.
    if (counted.size >= limits.maxConnections) {
      let oldest: Socket | undefined;
      for (const s of counted.keys()) {
        if (!inProgress(s)) {
          oldest = s;
          break;
        }
      }
      if (!oldest) {
        perAddress.give(address);
        socket.destroy();
        return;
      }
      // Released at once: its descriptor closes now, and the slot is the new connection's.
      release(oldest);
      oldest.destroy();
    }
    counted.set(socket, address);
    socket.once("close", () => release(socket));
  });
}

/** The limits of a server environment (config.ts: the environment's values, or their defaults). */
export function limitsOf(env: Pick<ServerEnv, "headersTimeoutMs" | "requestTimeoutMs" | "maxConnections" | "maxConnectionsPerAddress">): ConnectionLimits {
  return { headersTimeoutMs: env.headersTimeoutMs, requestTimeoutMs: env.requestTimeoutMs, maxConnections: connectionCap(env.maxConnections), maxPerAddress: env.maxConnectionsPerAddress };
}

/** The HTTP server every entry point listens with: the timeouts, both caps, and the envelope for Node's own errors. */
export function createHttpServer(listener: RequestListener, limits: ConnectionLimits): Server {
  const server = createServer(serverOptions(limits), listener);
  limitConnections(server, limits);
  envelopeClientErrors(server);
  return server;
}
