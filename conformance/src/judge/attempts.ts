/**
 * What every delivery attempt must be, retries included, wherever one arrives (the webhooks and retries checks, and
 * every delivery of a model sequence): a POST with the seed's headers, signed with the secret (HMAC-SHA256 over the
 * raw body), a payload with the seed's fields and its deprecated aliases equal to the fields they alias.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Ctx } from "../check.ts";
import { isJsonType } from "../http.ts";
import type { Delivery } from "../receiver.ts";
import { rules, seed } from "../rules.ts";

/** The per-attempt rules (ids `webhooks.*`: the webhooks check lists them with its own). */
export const attemptRules = rules("webhooks", {
  headers: seed("Events: method, headers", "every attempt, retries included, is a POST with Content-Type application/json and X-Webhook-Event: interview.completed", ["events.method", "events.content-type", "events.event-header"]),
  signature: seed("Events: X-Webhook-Signature", "every attempt's X-Webhook-Signature is sha256= and the lowercase hex HMAC-SHA256 of its raw body keyed with the signing secret", ["events.signature", "auth.signed-deliveries", "service.webhook"]),
  payload: seed("Events: body", "every attempt's payload has the seed's fields and types, event interview.completed and status completed", ["payload.event", "payload.timestamp", "payload.interview-id", "payload.study-id", "payload.study-name", "payload.session-id", "payload.experiment-id", "payload.experiment-name", "payload.interview-link", "payload.status", "payload.started-at", "payload.completed-at", "payload.duration", "payload.quality-score", "payload.language", "payload.reference-id", "payload.respondent-email"]),
  aliases: seed("Versioning 4: both forms are sent", "every attempt carries session_id, experiment_id and experiment_name, equal to interview_id, study_id and study_name", ["versioning.aliases", "payload.session-id", "payload.experiment-id", "payload.experiment-name"]),
});

const r = attemptRules;

/** Whether the delivery carries sha256=HMAC-SHA256(secret, raw body), compared in constant time. */
export function signed(secret: string, d: Delivery): boolean {
  const header = d.headers["x-webhook-signature"];
  const m = typeof header === "string" ? /^sha256=([0-9a-f]{64})$/.exec(header) : null;
  if (!m) return false;
  return timingSafeEqual(createHmac("sha256", secret).update(d.raw).digest(), Buffer.from(m[1], "hex"));
}

/**
 * Events: body; Endpoints note: "the interview :id equals the interview_id of the webhook payload": each payload field
 * with the value GET /v1/interviews/:id reads for it (its aliases too). The study's name is the study's, not here.
 */
export function payloadFieldsOf(rest: any): Array<[string, unknown]> {
  return [
    ["interview_id", rest?.id], ["session_id", rest?.id], ["study_id", rest?.study_id], ["experiment_id", rest?.study_id], ["started_at", rest?.started_at],
    ["completed_at", rest?.completed_at], ["duration_secs", rest?.duration_secs], ["quality_score", rest?.quality_score], ["language", rest?.language],
    ["reference_id", rest?.reference_id], ["respondent_email", rest?.respondent_email],
  ];
}

/**
 * The seed's rules that hold for every attempt, retries included: method and headers, the signature, the payload's
 * shape and its deprecated aliases (equal to the fields they alias). Called on every delivery the receiver caught.
 * `secret` null: not known (a webhook created before the proxy stood in front): the signature's form only.
 */
export function judgeAttempt(ctx: Pick<Ctx, "expect" | "contract">, secret: string | string[] | null, d: Delivery, label: string): void {
  const keys = typeof secret === "string" ? [secret] : secret;
  ctx.expect(r.headers, d.method === "POST", `${label} came as ${d.method}, not POST`);
  ctx.expect(r.headers, isJsonType(d.headers["content-type"]), `${label}: Content-Type is ${JSON.stringify(d.headers["content-type"])}, not application/json`);
  ctx.expect(r.headers, d.headers["x-webhook-event"] === "interview.completed", `${label}: X-Webhook-Event is ${JSON.stringify(d.headers["x-webhook-event"])}, not interview.completed`);
  // null: the secret is not known here (the proxy saw none issued), so only the header's form can be judged.
  if (keys === null) ctx.expect(r.signature, /^sha256=[0-9a-f]{64}$/.test(String(d.headers["x-webhook-signature"])), `${label}: X-Webhook-Signature ${JSON.stringify(d.headers["x-webhook-signature"])} is not sha256= followed by the 64 lowercase hex digits of an HMAC-SHA256`, undefined, { body: d.raw.toString("utf8").slice(0, 500) });
  else ctx.expect(r.signature, keys.some((k) => signed(k, d)), `${label}: X-Webhook-Signature ${JSON.stringify(d.headers["x-webhook-signature"])} is not sha256=HMAC-SHA256(secret, raw body)${keys.length > 1 ? ` with any of the ${keys.length} secrets issued before it arrived` : ""}`, undefined, { body: d.raw.toString("utf8").slice(0, 500) });
  let payload: any;
  try {
    payload = JSON.parse(d.raw.toString("utf8"));
  } catch {
    payload = undefined;
  }
  const schema = ctx.contract.ajv.validator("#/webhooks/interview.completed/post/requestBody/content/application~1json/schema");
  ctx.expect(r.payload, schema(payload), `${label}: the payload does not match the contract: ${JSON.stringify(schema.errors?.slice(0, 3))}`, undefined, payload);
  ctx.expect(r.payload, payload?.event === "interview.completed" && payload?.data?.status === "completed", `${label}: event ${JSON.stringify(payload?.event)}, data.status ${JSON.stringify(payload?.data?.status)}`, undefined, payload);
  for (const [alias, field] of [["session_id", "interview_id"], ["experiment_id", "study_id"], ["experiment_name", "study_name"]] as const) {
    ctx.expect(r.aliases, payload?.data !== undefined && alias in payload.data && payload.data[alias] === payload.data[field], `${label}: data.${alias} is ${JSON.stringify(payload?.data?.[alias])}, but it must be sent and equal data.${field} (${JSON.stringify(payload?.data?.[field])})`, undefined, payload?.data);
  }
}
