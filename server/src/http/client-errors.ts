/**
 * Requests Node itself refuses before Express sees them (malformed request line, headers too large, a request
 * timeout) get the error envelope too, not Node's bare `HTTP/1.1 400 Bad Request`.
 */
import type { Server } from "node:http";
import type { Duplex } from "node:stream";

function answer(status: number, reason: string, type: string, message: string): string {
  const body = JSON.stringify({ error: { type, message } });
  // nosniff as on every answer of the app (app.ts): these never reach it.
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export function envelopeClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || (err as { code?: string }).code === "ECONNRESET") return void socket.destroy();
    const code = (err as { code?: string }).code;
    const text =
      code === "HPE_HEADER_OVERFLOW" ? answer(431, "Request Header Fields Too Large", "invalid_request_error", "Request header fields too large")
      : code === "ERR_HTTP_REQUEST_TIMEOUT" ? answer(408, "Request Timeout", "invalid_request_error", "Request timed out")
      : answer(400, "Bad Request", "invalid_request_error", "Malformed HTTP request");
    socket.end(text);
  });
}
