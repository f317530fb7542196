// A provider-states module in plain JavaScript, with no import at all: studies and interviews only, over the test-support
// API of ../shared/foreign (see foreign-states.ts beside it for every capability, in TypeScript). A module offers the
// functions it defines; everything that needs the others (chats, created projects, fault injection) is NOT TESTED,
// each named with the capability it lacked. Refusals are plain errors with a `code` the suite reads.
//
//   npm run conformance -- --base-url http://127.0.0.1:4810/api --api-key svc_live_acme_4b1d9e07c2f85a36e1904d7bb2c6fa58 \
//     --receiver https --receiver-cert-dir $DIR --states conformance/examples/foreign-studies.mjs --level seed

/** The service's own refusal: not-accepting, final, not-found or invalid. */
function refused(reason, message) {
  return Object.assign(new Error(message), { code: "STATE_REFUSED", reason });
}

export default function states(env) {
  const origin = env.baseUrl.replace(/\/api\/?$/, "");
  const token = process.env.FOREIGN_TESTING_TOKEN ?? "testing";

  async function call(project, method, path, body) {
    const res = await fetch(`${origin}/testing/${path}`, {
      method,
      headers: { "x-testing-token": token, "x-testing-project": project.apiKey, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const answer = text ? JSON.parse(text) : undefined;
    if (res.ok) return answer;
    const message = `${method} /testing/${path} answered ${res.status}: ${(answer?.problems ?? [text]).join("; ")}`;
    if (res.status === 409) throw refused(path.includes(":") ? "final" : "not-accepting", message);
    if (res.status === 404) throw refused("not-found", message);
    throw refused("invalid", message);
  }

  return {
    async plantStudy(s, project) {
      const study = await call(project, "POST", "studies", { name: s.name, status: s.status, monthly_limit: s.monthly_limit, weekly_limit: s.weekly_limit, supported_languages: s.supported_languages, questions: s.questions });
      return { id: study.id };
    },
    async plantInterview(i, project) {
      // This module does not open interviews through links or at chosen instants: a field it cannot plant is unsupported.
      for (const [field, capability] of [["interview_link", "interview-link"], ["created_at", "created-at"], ["completed_at", "created-at"], ["respondent_id", "respondent-id"]]) {
        if (i[field] !== undefined) throw Object.assign(new Error(`this module does not plant ${field}`), { code: "STATE_UNSUPPORTED", capability });
      }
      const planted = await call(project, "POST", "interviews", { study_id: i.study_id, reference_id: i.reference_id, language: i.language, respondent_email: i.respondent_email, hold: i.hold });
      return { id: planted.id, status: planted.status };
    },
    async completeInterview(id, project) {
      const done = await call(project, "POST", `interviews/${id}:finish`);
      return { id: done.id, status: done.status };
    },
    async abandonInterview(id, project) {
      const left = await call(project, "POST", `interviews/${id}:abandon`);
      return { id: left.id, status: left.status };
    },
  };
}
