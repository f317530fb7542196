/**
 * The headers real clients send, every run. A browser asks for `text/html` first (`*\/*` last), axios and many
 * generated clients send `application/json, text/plain, *\/*`, and generated clients set `Content-Type:
 * application/json` on every request, a body or not, often with a charset. The seed answers every request in JSON
 * (but a 204) whatever the client prefers, and takes a JSON body however its media type is written (HTTP: type and
 * subtype are case-insensitive, parameters allowed). Frameworks habitually do otherwise: a browsable HTML page or an HTML
 * error for a browser, a 406 for an Accept they match too strictly, a 400 for a JSON content type without a body, a 415
 * for a charset. The suite's own requests (`*\/*`, and a content type only with a body) reach none of them.
 *
 * Each request is sent plain and with the client's headers: the two answers must agree (status and JSON body).
 */
import { errorMessage, isJsonType, type Reply } from "../http.ts";
import { NEVER_ID } from "../data.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

const ACCEPTS: Array<[string, string]> = [
  ["a browser's Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"],
  ["a generated client's Accept", "application/json, text/plain, */*"],
  ["Accept with a charset", "application/json; charset=utf-8"],
];

const isJson = (reply: Reply) => isJsonType(reply.headers.get("content-type")) && reply.body !== undefined;

/** Why `got` (sent with the client's headers) is not answered as `plain` was, or "" when it is. */
function disagreement(plain: Reply, got: Reply): string {
  if (got.status !== plain.status) return `answered ${got.status}, where the same request without them answered ${plain.status}`;
  if (got.status === 204) return got.text === "" ? "" : "answered 204 with a body";
  if (!isJson(got)) return `answered ${JSON.stringify(got.headers.get("content-type"))} (${JSON.stringify(got.text.slice(0, 80))}), not JSON`;
  // An error's body may carry what differs per request (a request id): its message is what must agree.
  if (got.status >= 400) return errorMessage(got.body) === errorMessage(plain.body) ? "" : `answered the error ${JSON.stringify(errorMessage(got.body))}, where the same request without them answered ${JSON.stringify(errorMessage(plain.body))}`;
  // A list is its items and has_more (an envelope may carry what differs per answer).
  const kept = (body: any) => (Array.isArray(body?.data) ? { data: body.data, has_more: body.has_more } : body);
  if (JSON.stringify(kept(got.body)) !== JSON.stringify(kept(plain.body))) return `answered the JSON ${got.text.slice(0, 120)}, where the same request without them answered ${plain.text.slice(0, 120)}`;
  return "";
}

export const clientHeaders: Unit = {
  name: "client-headers",
  doc: "reads, errors (404, 400, 401) and webhook writes sent with the headers browsers and generated clients send (a browser's Accept, axios's, Accept with a charset; Content-Type: application/json on a GET and a DELETE without a body; a JSON body as application/json; charset=utf-8 and as Application/JSON): each answered as the same request without them, in JSON",
  needs: [],
  rules: [r["client-headers"]],
  classes: () => [...ACCEPTS.map(([cls]) => cls), "a JSON content type without a body", "a JSON body with a charset", "a JSON media type in other case"],
  async run(env) {
    const requests: Array<[string, { key?: null }]> = [
      ["/v1/studies?limit=2", {}],
      [`/v1/studies/${NEVER_ID}`, {}],
      [`/v1/chats/${NEVER_ID}/messages?limit=0`, {}],
      ["/v1/studies?limit=2", { key: null }],
    ];
    for (const [cls, accept] of ACCEPTS) {
      for (const [path, init] of requests) await agree(env, cls, `GET ${path}${init.key === null ? " without a key" : ""} with Accept: ${accept}`, () => env.req(path, init), () => env.req(path, { ...init, headers: { accept } }));
      env.reach(cls, r["client-headers"].cites);
    }

    // A generated client's Content-Type on a request without a body.
    const ct = { "content-type": "application/json" };
    await agree(env, "a JSON content type without a body", "GET /v1/studies?limit=2 with Content-Type: application/json and no body", () => env.req("/v1/studies?limit=2"), () => env.req("/v1/studies?limit=2", { headers: ct }));

    // A webhook set (created, or updated where one was set), then the same body sent again as an update, plain and with
    // its media type written otherwise. No delivery is awaited: the URL is never called.
    let body = { url: "https://hooks.example.com/cover/client-headers", events: ["interview.completed"] };
    let set = await env.req("/v1/webhooks", { method: "PUT", body });
    // A service that takes only a URL it can reach: the suite's receiver, when the run has one.
    const hook = set.status >= 300 ? await env.hook("client-headers") : null;
    if (hook) [body, set] = [{ ...body, url: hook.url }, hook.reply];
    await agree(env, "a JSON content type without a body", "GET /v1/webhooks with Content-Type: application/json and no body", () => env.req("/v1/webhooks"), () => env.req("/v1/webhooks", { headers: ct }));
    const plainPut = await env.req("/v1/webhooks", { method: "PUT", body });
    for (const [cls, type] of [["a JSON body with a charset", "application/json; charset=utf-8"], ["a JSON media type in other case", "Application/JSON"]] as const) {
      const got = await env.req("/v1/webhooks", { method: "PUT", body, headers: { "content-type": type } });
      const problem = disagreement(plainPut, got);
      env.expect(r["client-headers"], !problem, `${cls}: PUT /v1/webhooks with Content-Type: ${type} ${problem}`, got);
      env.reach(cls, r["client-headers"].cites);
    }
    // Only a webhook the service took can be deleted (a DELETE with none set may be a 404).
    if (set.status >= 300) return;
    const deleted = await env.req("/v1/webhooks", { method: "DELETE", headers: ct });
    const gone = await env.req("/v1/webhooks");
    env.expect(r["client-headers"], deleted.status === 204 && gone.status === 404, `a JSON content type without a body: DELETE /v1/webhooks with Content-Type: application/json and no body answered ${deleted.status}${deleted.status === 204 ? `, and the webhook read after it ${gone.status}` : ""}, not 204 (and 404 after)`, deleted.status === 204 ? gone : deleted);
    env.reach("a JSON content type without a body", r["client-headers"].cites);
  },
};

async function agree(env: CoverEnv, cls: string, what: string, plain: () => Promise<Reply>, variant: () => Promise<Reply>): Promise<void> {
  const a = await plain();
  const b = await variant();
  const problem = disagreement(a, b);
  env.expect(r["client-headers"], !problem, `${cls}: ${what} ${problem}`, b);
}
