/**
 * `npm run example:express -w receiver` (or `npm run example:receiver` at the root): an Express receiver on loopback
 * that verifies, de-duplicates and logs `interview.completed` events. WEBHOOK_SECRET holds the signing secret
 * (several, comma-separated, during a rotation); PORT defaults to 4020. Register it with the sandbox:
 *   curl -X PUT -H "Authorization: Bearer $KEY" -H "Content-Type: application/json" \
 *        -d '{"url":"http://127.0.0.1:4020/hook","events":["interview.completed"]}' http://127.0.0.1:4010/api/v1/webhooks
 */
import express from "express";
import { createDeduplicator, verifiedWebhook, webhookMiddleware } from "@service/webhook-receiver";

const secrets = (process.env.WEBHOOK_SECRET ?? "").split(",").map((s) => s.trim()).filter(Boolean);
if (secrets.length === 0) {
  console.error("Set WEBHOOK_SECRET to the signing_secret returned by PUT /v1/webhooks (comma-separate several during a rotation).");
  process.exit(2);
}
const port = Number(process.env.PORT ?? 4020);
const dedupe = createDeduplicator();
const app = express();

app.post("/hook", webhookMiddleware({ secrets, onError: (reason) => console.log(`rejected delivery: ${reason}`) }), async (req, res) => {
  const { event, payload } = verifiedWebhook(req);
  const duplicate = await dedupe.seen(payload);
  console.log(`${event} interview ${payload.data.interview_id} (${payload.data.study_name ?? "no study"}, ${payload.data.quality_score ?? "unscored"})${duplicate ? " duplicate, ignored" : ""}`);
  res.status(200).json({ received: true, duplicate });
});

app.listen(port, "127.0.0.1", () => console.log(`webhook receiver on http://127.0.0.1:${port}/hook`));
