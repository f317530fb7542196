/**
 * A provider-states module over the /admin surface (admin-surface.ts): what an implementer writes for `--states FILE`
 * when their system plants data its own way. It maps each function onto that API and its answers onto the suite's
 * two errors, and says which capabilities it offers.
 */
import { defineStates, StateRefused, type ProjectRef } from "../../../conformance/src/states/index.ts";

export default defineStates((env) => {
  async function call(project: ProjectRef, method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${env.baseUrl}/admin/${path}`, {
      method, headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = res.status === 204 ? undefined : await res.json().catch(() => undefined);
    if (res.ok) return answer;
    const message = `${method} /admin/${path} answered ${res.status}: ${JSON.stringify(answer).slice(0, 200)}`;
    if (res.status === 409) throw new StateRefused(path.includes("/") ? "final" : "not-accepting", message);
    if (res.status === 404) throw new StateRefused("not-found", message);
    throw new StateRefused("invalid", message);
  }
  const record = (answer: any) => ({ id: answer.record.id, status: answer.record.state });
  return {
    capabilities: () => ["plant-study", "plant-interview", "hold", "complete", "abandon", "created-at", "interview-link", "respondent-id", "plant-chat", "hidden-messages", "recorded-parts", "chat-fields", "create-project", "faults", "study-status", "plant-release", "release-url"],
    plantStudy: async (s, project) => record(await call(project, "POST", "studies", { title: s.name, state: s.status, weekly_cap: s.weekly_limit, monthly_cap: s.monthly_limit, languages: s.supported_languages, questions: s.questions })),
    plantInterview: async (i, project) => record(await call(project, "POST", "interviews", { study: i.study_id, ref: i.reference_id, lang: i.language, email: i.respondent_email, paused: i.hold, opened_at: i.created_at, finished_at: i.completed_at, link: i.interview_link, respondent: i.respondent_id })),
    setStudyStatus: async (id, status, project) => ({ id: (await call(project, "POST", `studies/${id}/state`, { state: status })).id }),
    completeInterview: async (id, project) => record(await call(project, "POST", `interviews/${id}/finish`)),
    abandonInterview: async (id, project) => record(await call(project, "POST", `interviews/${id}/leave`)),
    plantChat: async (c, project) => {
      const made = await call(project, "POST", "chats", { title: c.title, source: c.source, kind: c.visibility, opened_at: c.created_at, live: c.is_streaming, messages: c.messages.map(({ hidden, ...m }) => ({ ...m, hidden_branch: hidden })) });
      return { id: made.chat, message_ids: made.messages };
    },
    plantRelease: async (r, project) => ({ id: (await call(project, "POST", "releases", { pr: r.vcs_pr_number, title: r.vcs_pr_title, body: r.vcs_pr_description, author: r.vcs_pr_author, url: r.vcs_pr_url, state: r.status, merged: r.merged_at, analysed: r.last_analysis_at })).record.id }),
    createProject: async (p, project) => ({ api_key: (await call(project, "POST", "projects", { label: p.name })).key }),
    setFaults: async (settings, project) => void (settings === null ? await call(project, "DELETE", "faults") : await call(project, "PUT", "faults", settings)),
  };
});

