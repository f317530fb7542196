/**
 * A provider-states module for an implementation unlike ours: `../shared/foreign/server.mjs`, written from the
 * service description alone. It has no `/_sim`; it plants through its own test-support API under `/testing/`, with
 * its own names, its own statuses (422 for its validation, 409 for conflicts, `{problems}` bodies) and its own
 * selector of the project (`X-Testing-Project`, which takes an API key). This file is the README's complete example:
 * every function maps the suite's input onto that API and the API's answers onto the suite's two errors.
 *
 *   WEBHOOK_CA_FILE=$DIR/ca.pem WEBHOOK_RETRY_DELAYS_MS=300,600,900 PORT=4810 node ../shared/foreign/server.mjs &
 *   npm run conformance -- --base-url http://127.0.0.1:4810/api --api-key svc_live_acme_4b1d9e07c2f85a36e1904d7bb2c6fa58 \
 *     --other-key svc_live_globex_8e2a6c10f93b47d5a8c1e06b9f7d3a24 --public-key pub_acme_2d7f0b95e4c1a8369b5e7f02c4d1a6e3 \
 *     --receiver https --receiver-cert-dir $DIR --webhook-retry-delays-ms 300,600,900 \
 *     --states conformance/examples/foreign-states.ts --level seed
 *
 * `FOREIGN_TESTING_TOKEN` overrides the test-support token (the server's `TESTING_TOKEN`, default `testing`).
 */
import { defineStates, StateRefused, StateUnsupported, type PlantChatInput, type ProjectRef } from "@service/api-conformance/states";

type RecordedPart = PlantChatInput["messages"][number]["parts"][number];

/** The suite names raw tool transports by their recorded `type`; this server records a transport name beside a call. */
const TRANSPORT: Record<string, string> = {
  tool_use: "server", server_tool_use: "server", mcp_tool_use: "mcp",
  tool_result: "server", web_search_tool_result: "web_search", code_execution_tool_result: "code_execution", mcp_tool_result: "mcp",
};
/** Transient tool states: the suite's names, and this server's. */
const TRANSIENT: Record<string, string> = { input_streaming: "streaming_input", approval_requested: "awaiting_approval", approval_responded: "awaiting_approval" };

/** A recorded part in this server's own shape (public parts are given as they read). */
function part(p: RecordedPart): unknown {
  const raw = p as Record<string, unknown> & { type: string };
  if (raw === null || typeof raw !== "object") return raw;
  if (raw.type === "tool_use" && !(String(raw.state) in TRANSIENT)) return raw;
  if (raw.type === "tool_use" || raw.type === "server_tool_use" || raw.type === "mcp_tool_use") {
    return { type: "tool_call", transport: TRANSPORT[raw.type], call_id: raw.id, tool: raw.name, summary: raw.summary, args: raw.input, status: TRANSIENT[String(raw.state)] ?? raw.state };
  }
  if (raw.type !== "tool_result" && raw.type in TRANSPORT) {
    return { type: "tool_output", transport: TRANSPORT[raw.type], call_id: raw.tool_use_id, output: raw.content, failed: raw.is_error };
  }
  return raw;
}

export default defineStates((env) => {
  const token = process.env.FOREIGN_TESTING_TOKEN ?? "testing";
  // The test-support API lives beside /api, not under it.
  const origin = env.baseUrl.replace(/\/api\/?$/, "");

  /** A read of the API itself, waiting out a 429 as its Retry-After asks (a server may limit its rate). */
  async function api(path: string, headers: Record<string, string>): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${env.baseUrl}${path}`, { headers });
      if (res.status !== 429 || attempt >= 10) return res;
      await res.arrayBuffer();
      await new Promise((ok) => setTimeout(ok, 1_000 * (Number(res.headers.get("retry-after")) || 1)));
    }
  }

  async function call(project: ProjectRef | null, method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${origin}/testing/${path}`, {
      method,
      headers: { "x-testing-token": token, ...(project ? { "x-testing-project": project.apiKey } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const answer = text ? (JSON.parse(text) as any) : undefined;
    if (res.ok) return answer;
    const message = `${method} /testing/${path} answered ${res.status}: ${(answer?.problems ?? [text]).join("; ").slice(0, 300)}`;
    // 409: the study is not accepting (a planting), or the interview is no longer started (a transition).
    if (res.status === 409) throw new StateRefused(path.includes(":") ? "final" : "not-accepting", message);
    if (res.status === 404) throw new StateRefused("not-found", message);
    throw new StateRefused("invalid", message);
  }

  return {
    // Everything but fault injection, which this server does not have.
    capabilities: () => ({
      "plant-study": true, "plant-interview": true, hold: true, complete: true, abandon: true, "created-at": true, "interview-link": true,
      "respondent-id": true, "plant-chat": true, "hidden-messages": true, "recorded-parts": true, "chat-fields": true, "create-project": true,
      "plant-release": true, "release-url": "the foreign server chooses a release's URL itself", faults: "the foreign server has no fault injection", "eligible-launch": true, "study-status": true,
    }),

    plantStudy: async (s, project) => ({
      id: (await call(project, "POST", "studies", {
        name: s.name, status: s.status, monthly_limit: s.monthly_limit, weekly_limit: s.weekly_limit, supported_languages: s.supported_languages,
        questions: s.questions, trigger_event: s.trigger_event, launch_mode: s.launch_mode,
      })).id,
    }),

    // Its PUT replaces the whole study: everything the API shows of it is sent back with the new status. What the API
    // does not show (its trigger event and launch mode) goes back to the server's defaults (the suite sets no status on
    // a study it planted with a launch mode); the status it already has is no change, so nothing is sent.
    setStudyStatus: async (id, status, project) => {
      const got = await api(`/v1/studies/${id}`, { authorization: `Bearer ${project.apiKey}` });
      if (got.status === 404) throw new StateRefused("not-found", `GET /v1/studies/${id} answered 404`);
      const s = (await got.json()) as any;
      if (s.status === status) return { id };
      await call(project, "PUT", `studies/${id}`, {
        name: s.name, status, monthly_limit: s.limits?.monthly?.limit, weekly_limit: s.limits?.weekly?.limit, supported_languages: s.supported_languages,
        questions: s.questions, research_goal: s.research_goal, product_name: s.product_name,
      });
      return { id };
    },

    plantInterview: async (i, project) => {
      const planted = await call(project, "POST", "interviews", {
        // Opened through the study's link: the server reads reference_id from the link's query string.
        ...(i.interview_link !== undefined ? { via_link: i.interview_link } : { study_id: i.study_id }),
        reference_id: i.reference_id, language: i.language, respondent_email: i.respondent_email, respondent_id: i.respondent_id,
        hold: i.hold, created_at: i.created_at,
        // This server records a given completed_at as history (no event); without one a backdated interview runs on its timer.
        ...(i.completed_at !== undefined && !i.hold ? { completed_at: i.completed_at } : {}),
      });
      return { id: planted.id, status: planted.status };
    },

    // 202 {id, status: "processing"}: the interview completes on the server's timer and is then delivered.
    completeInterview: async (id, project) => {
      const done = await call(project, "POST", `interviews/${id}:finish`);
      return { id: done.id, status: done.status };
    },

    abandonInterview: async (id, project) => {
      const left = await call(project, "POST", `interviews/${id}:abandon`);
      return { id: left.id, status: left.status };
    },

    plantChat: async (c, project) => {
      const made = await call(project, "POST", "chats", {
        title: c.title, source: c.source, visibility: c.visibility, is_streaming: c.is_streaming, created_at: c.created_at,
        // Its own validation judges what is not a list of messages with a list of parts: passed on as given.
        messages: Array.isArray(c.messages) ? c.messages.map((m) => ({
          role: m?.role, parts: Array.isArray(m?.parts) ? m.parts.map(part) : m?.parts, sources: m?.sources, feedback: m?.feedback, usage: m?.usage, streaming: m?.streaming, hidden: m?.hidden, created_at: m?.created_at, completed_at: m?.completed_at,
        })) : c.messages,
      });
      return { id: made.id, message_ids: made.message_ids };
    },

    // Its releases take a number, title, description, author, status and merge instant; it decides the URL, and it
    // records the last analysis an hour after the merge unless `analysed: false` (never analysed, read as null). So a
    // release analysed at an instant can be planted only at that one.
    plantRelease: async (r, project) => {
      if (r.vcs_pr_url !== undefined) throw new StateUnsupported("release-url", "vcs_pr_url: the foreign server chooses a release's URL itself");
      const analysed = r.last_analysis_at ?? undefined;
      if (analysed !== undefined && (r.merged_at === undefined || Date.parse(analysed) !== Date.parse(r.merged_at) + 3_600_000)) {
        throw new StateUnsupported("plant-release", "the foreign server records a release's last analysis an hour after its merge, at no other instant");
      }
      const made = await call(project, "POST", "releases", {
        pr_number: r.vcs_pr_number, pr_title: r.vcs_pr_title, pr_description: r.vcs_pr_description, pr_author: r.vcs_pr_author, status: r.status, merged_at: r.merged_at,
        ...(r.last_analysis_at === null ? { analysed: false } : {}),
      });
      return { id: made.id };
    },

    createProject: async (p) => {
      const made = await call(null, "POST", "projects", { name: p.name });
      return { id: made.project_id, api_key: made.api_key, public_key: made.public_key };
    },

    // Its trigger config carries a signed launch token per active study; a study accepting responses launches.
    launchRequest: async (project) => {
      const get = async (path: string, headers: Record<string, string>) => (await api(path, headers)).json() as Promise<any>;
      const config = await get("/v1/interview-participant/config?referenceId=conformance_user", { "x-public-key": project.publicKey });
      const accepting = new Set(((await get("/v1/studies?limit=100", { authorization: `Bearer ${project.apiKey}` })).data ?? []).filter((s: any) => s.accepting_responses).map((s: any) => s.id));
      const rule = (config.rules ?? []).find((r: any) => accepting.has(r.experimentId));
      if (!rule) throw new StateRefused("not-accepting", "no study of the project is accepting responses, so no launch is eligible");
      return { token: rule.launch.token, referenceId: "conformance_user" };
    },

    // Its deprecated report: {object: "experiment_usage", usage: {all_time, this_month, this_week}, experiments: [...]},
    // each experiment with the study's fields, its interviews by status and in all, and its quality counts.
    readExperiments: (body: any) => {
      if (body?.object !== "experiment_usage" || !Array.isArray(body.experiments)) return undefined;
      // Every member it documents is reported: one it lacks reads null, and fails.
      const count = (v: unknown) => (typeof v === "number" ? v : null);
      return {
        usage: { total: count(body.usage?.all_time), this_month: count(body.usage?.this_month), this_week: count(body.usage?.this_week) },
        experiments: body.experiments.map((e: any) => ({
          id: e.id,
          study: { name: e.name ?? null, interview_link: e.interview_link ?? null, accepting_responses: e.accepting_responses ?? null, limits: e.limits ?? null },
          interviews: { total: count(e.interviews?.total), started: count(e.interviews?.started), processing: count(e.interviews?.processing), completed: count(e.interviews?.completed) },
          quality: { insightful: count(e.quality?.insightful), successful: count(e.quality?.successful), unsuccessful: count(e.quality?.unsuccessful) },
        })),
      };
    },

    setFaults: async () => {
      throw new StateUnsupported("faults", "the foreign server has no fault injection");
    },
  };
});
