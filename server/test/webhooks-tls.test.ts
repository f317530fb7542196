// A delivery to an https receiver whose certificate only an extra CA (WEBHOOK_CA_FILE) vouches for: trusted with that
// CA, refused without it, and trusted again at once when the CA file is rewritten for a new certificate (the TLS
// context is built once per CA text, not once per attempt, and never outlives the text it was built from).
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { postWebhook } from "../src/webhooks/delivery.ts";
import { loopbackCertificate } from "../../test/support/tls.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function receiver(): Promise<{ url: string; ca: string }> {
  const tls = await loopbackCertificate("tls test receiver");
  const server = createServer(tls, (_req, res) => res.writeHead(204).end());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, ca: tls.cert };
}

const post = (url: string, extraCa?: string) => postWebhook({ url, body: Buffer.from("{}"), headers: { "content-type": "application/json" }, timeoutMs: 5_000, extraCa });

describe("webhook delivery over TLS with an extra CA", () => {
  it("trusts the extra CA, refuses without it, and follows the CA text when it changes", async () => {
    const [first, second] = await Promise.all([receiver(), receiver()]);
    expect(await post(first.url, first.ca)).toEqual({ kind: "answered", status: 204 });
    // The same context serves every attempt under one CA text.
    expect(await Promise.all([1, 2, 3].map(() => post(first.url, first.ca)))).toEqual(Array(3).fill({ kind: "answered", status: 204 }));
    expect(await post(first.url)).toMatchObject({ kind: "connection_error" });
    // The CA file rewritten for another certificate: the old one is no longer trusted, the new one is, at once.
    expect(await post(first.url, second.ca)).toMatchObject({ kind: "connection_error" });
    expect(await post(second.url, second.ca)).toEqual({ kind: "answered", status: 204 });
    expect(await post(first.url, first.ca)).toEqual({ kind: "answered", status: 204 });
  }, 30_000);

  it("answers a CA text that is not a certificate with a connection error, not a throw", async () => {
    const { url } = await receiver();
    expect(await post(url, "-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----\n")).toMatchObject({ kind: "connection_error" });
  }, 30_000);
});
