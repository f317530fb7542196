/** `recreateWithRetry`: an interview whose first attempt fails, then the webhook deleted and created again (a new secret, maybe a new URL) while its retry is pending: a retry, if one still comes, goes where the webhook pointed when the interview completed, signed with that webhook's secret; the new webhook hears only of what completes after it. */
import fc from "fast-check";
import { sequenceWindow, sleep } from "../../judge/timing.ts";
import { completeNow, start } from "../interview-steps.ts";
import { r } from "../rules.ts";
import { hookPath, type Model, type World } from "../world.ts";
import { Command, deliveriesOf, openInterviews, type CommandSpec } from "./base.ts";
import { SEQUENCE_RETRY_MS } from "./complete-with-answers.ts";

export class RecreateWithRetry extends Command {
  readonly name = "recreateWithRetry";
  constructor(readonly samePath: boolean) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.webhook?.subscribed === true;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0 && !(await start(m, w, false))) return;
    const [id] = openInterviews(m)[0];
    m.answers.set(id, [500]);
    await completeNow(m, w, id);
    const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000);
    while (deliveriesOf(m, w, id).length === 0 && Date.now() < deadline) await sleep(20);
    // The retry is pending: the webhook goes, and comes back with a new secret.
    const del = await w.http.req("/v1/webhooks", { method: "DELETE" });
    w.judge.expect(r["webhook-state"], del.status === 204, `DELETE /v1/webhooks with a retry pending answered ${del.status}, not 204`, del);
    const path = this.samePath ? m.webhook!.path : hookPath(m, m.webhook!.path.endsWith("/a") ? "b" : "a");
    const url = new URL(w.receiver.url);
    url.pathname = path;
    const put = await w.http.req("/v1/webhooks", { method: "PUT", body: { url: url.toString(), events: ["interview.completed"] } });
    const secret = put.body?.signing_secret;
    w.judge.expect(r["webhook-state"], put.status === 201 && typeof secret === "string" && secret !== m.webhook!.secret, `PUT after DELETE with a retry pending answered ${put.status}${secret === m.webhook!.secret ? " with the old secret" : ""}, not 201 with a new signing_secret`, put);
    m.webhook = put.status < 300 ? { path, subscribed: true, secret: String(secret ?? "") } : null;
    // Past the retry's window: whatever came is judged by settle against the webhook of the completion.
    await sleep(sequenceWindow(w.ctx.options.webhookRetryDelaysMs[0] ?? 0)[1] + 200);
    m.answers.delete(id);
  }
  override toString = () => `recreateWithRetry(${this.samePath ? "the same URL" : "a new URL"})`;
}

export const recreateWithRetry: CommandSpec = {
  name: "recreateWithRetry",
  doc: "a first attempt that fails, then DELETE and PUT of the webhook while the retry is pending (the same URL or a new one): PUT answers 201 with a new secret, a retry that still comes goes to the URL of the completion signed with its secret (drawn when the retry schedule totals 6 s or less)",
  statements: ["auth.webhook-delete", "events.sent-to", "events.signature", "endpoints.delete-webhook", "endpoints.put-webhook", "webhook-config.secret"],
  needs: ["plant-interview", "hold", "complete"],
  weight: 1,
  draw: (o) => (o.retryDelaysMs.reduce((a, b) => a + b, 0) > SEQUENCE_RETRY_MS ? `the retry schedule ${o.retryDelaysMs.join(", ")} ms is too long for a sequence` : fc.boolean().map((same) => new RecreateWithRetry(same))),
};
