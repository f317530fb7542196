/**
 * A webhook relay for broken variants: the proxy points the server's webhook at it, and it forwards each
 * delivery to the suite's receiver after tampering with it (a corrupted signature, an altered payload).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Tamper = (body: Buffer, headers: Record<string, string>) => { body: Buffer; headers: Record<string, string> };

export class Relay {
  private server!: Server;
  url = "";
  target = "";

  /** The method deliveries are forwarded with. */
  method = "POST";
  /** Rewrites the receiver's status before the server sees it (e.g. a 401 passed on as a 200). */
  respond: (status: number, body: Buffer) => number = (status) => status;

  constructor(private readonly tamper: Tamper) {}

  async start(): Promise<void> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = {};
      for (const k of ["content-type", "x-webhook-event", "x-webhook-signature"]) if (typeof req.headers[k] === "string") headers[k] = req.headers[k] as string;
      const out = this.tamper(Buffer.concat(chunks), headers);
      try {
        const answer = await fetch(this.target, { method: this.method, headers: out.headers, body: new Uint8Array(out.body) });
        res.writeHead(this.respond(answer.status, out.body));
      } catch {
        res.writeHead(502);
      }
      res.end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/relay`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
