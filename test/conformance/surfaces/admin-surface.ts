/**
 * A simulation surface that is not ours: the reference server behind a proxy that moves planting to `/admin/...`
 * with its own field names and answers, and answers 404 on `/_sim`. The suite reaches it only through a states
 * module (admin-states.ts), as an implementer with their own admin API would.
 */
import type { Exchange, Mutation } from "../broken/proxy.ts";

type Request = Pick<Exchange, "method" | "path" | "query" | "requestHeaders" | "requestBody">;

const rename = (from: Record<string, unknown> | undefined, names: Record<string, string>) =>
  Object.fromEntries(Object.entries(from ?? {}).filter(([, v]) => v !== undefined).map(([k, v]) => [names[k] ?? k, v]));

const STUDY = { title: "name", state: "status", weekly_cap: "weekly_limit", monthly_cap: "monthly_limit", languages: "supported_languages" };
const INTERVIEW = { study: "study_id", ref: "reference_id", lang: "language", email: "respondent_email", paused: "hold", opened_at: "created_at", finished_at: "completed_at", link: "interview_link", respondent: "respondent_id" };
const MESSAGE = { hidden_branch: "hidden" };
const CHAT = { kind: "visibility", opened_at: "created_at", live: "is_streaming" };
const RELEASE = { pr: "vcs_pr_number", title: "vcs_pr_title", body: "vcs_pr_description", author: "vcs_pr_author", url: "vcs_pr_url", state: "status", merged: "merged_at", analysed: "last_analysis_at" };

function translate(ex: Request): void {
  // A study's state changes by POST /admin/studies/:id/state {state}.
  const state = /^\/api\/admin\/studies\/([^/]+)\/state$/.exec(ex.path);
  if (state) {
    ex.requestHeaders["x-admin"] = "studies/state";
    ex.method = "PUT";
    ex.path = `/api/_sim/studies/${state[1]}/status`;
    ex.requestBody = { status: ex.requestBody?.state };
    return;
  }
  const m = /^\/api\/admin\/(studies|interviews|chats|releases|projects|faults)(?:\/([^/]+)\/(finish|leave))?$/.exec(ex.path);
  if (!m) {
    if (ex.path.startsWith("/api/_sim")) ex.requestHeaders["x-admin-hidden"] = "1";
    return;
  }
  const [, what, id, verb] = m;
  ex.requestHeaders["x-admin"] = what + (verb ? `/${verb}` : "");
  if (verb) {
    ex.path = `/api/_sim/interviews/${id}/${verb === "finish" ? "complete" : "abandon"}`;
    return;
  }
  ex.path = `/api/_sim/${what}`;
  const b = ex.requestBody;
  if (what === "studies") ex.requestBody = rename(b, STUDY);
  if (what === "interviews") ex.requestBody = rename(b, INTERVIEW);
  if (what === "chats") ex.requestBody = { ...rename(b, CHAT), messages: (b?.messages ?? []).map((msg: any) => rename(msg, MESSAGE)) };
  if (what === "releases") ex.requestBody = rename(b, RELEASE);
  if (what === "projects") ex.requestBody = { name: b?.label };
}

export const adminSurface: Mutation = {
  name: "planting under /admin with other field names",
  request(ex) {
    translate(ex);
    // Its own surface only: /_sim is not there (answered 404 below without reaching the server).
    if (ex.requestHeaders["x-admin-hidden"]) {
      ex.method = "GET";
      ex.path = "/api/v1/studies";
      ex.query = new URLSearchParams("limit=1");
      ex.requestBody = undefined;
    }
  },
  response(ex) {
    if (ex.requestHeaders["x-admin-hidden"]) {
      Object.assign(ex, { status: 404, body: { error: { type: "not_found_error", message: "Not found" } } });
      return;
    }
    const what = ex.requestHeaders["x-admin"];
    if (!what || ex.status >= 300) return;
    if (what === "projects") ex.body = { project: ex.body.id, key: ex.body.api_key };
    else if (what === "chats") ex.body = { chat: ex.body.id, messages: ex.body.message_ids };
    else if (what === "releases") ex.body = { record: { id: ex.body.id, state: ex.body.status } };
    else if (what === "studies" || what.startsWith("interviews")) ex.body = { record: { id: ex.body.id, state: ex.body.status } };
  },
};
