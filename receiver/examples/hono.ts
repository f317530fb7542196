/**
 * `npm run example:hono -w receiver`: the same receiver as a fetch-style handler (Hono here; a Next.js route handler
 * is the same body in `export async function POST(request: Request)`). It uses only the runtime-neutral entry
 * `@service/webhook-receiver/web` (Web Crypto, Web Request and Response), so the handler also runs on edge runtimes.
 * WEBHOOK_SECRET and PORT (default 4021) as in express.ts.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createDeduplicator, rejectionResponse, verifyWebhookRequest } from "@service/webhook-receiver/web";

const secrets = (process.env.WEBHOOK_SECRET ?? "").split(",").map((s) => s.trim()).filter(Boolean);
if (secrets.length === 0) {
  console.error("Set WEBHOOK_SECRET to the signing_secret returned by PUT /v1/webhooks (comma-separate several during a rotation).");
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4021);
const dedupe = createDeduplicator();
const app = new Hono();

app.post("/hook", async (c) => {
  const result = await verifyWebhookRequest(c.req.raw, { secrets });
  if (!result.ok) {
    console.log(`rejected delivery: ${result.reason}`);
    return rejectionResponse(result);
  }
  const duplicate = await dedupe.seen(result.payload);
  console.log(`${result.event} interview ${result.payload.data.interview_id}${duplicate ? " duplicate, ignored" : ""}`);
  return c.json({ received: true, duplicate });
});

serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, () => console.log(`webhook receiver (Hono) on http://127.0.0.1:${port}/hook`));
