/**
 * A simulation surface (`/_sim`) in front of the foreign implementation, written in that server's conventions, not
 * ours: a missing route answers its `404 "Not Found"`, a wrong method 405 with `Allow`, its own validation 422
 * `{status, message}` with no details, an id that does not exist (malformed included) 404 naming it. Behind it, each
 * operation plants through the foreign server's `/testing` API (conformance/examples/foreign-states.ts). Everything
 * else goes to the foreign server untouched.
 *
 * `without` removes capabilities as that server would: an operation's route is gone (its missing-route answer), and an
 * optional field is refused with a 422 whose message names it. A refused request never reaches the server.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import foreignStates from "../../../conformance/examples/foreign-states.ts";
import type { Capability } from "../../../conformance/src/states/capabilities.ts";
import type { ProviderStates } from "../../../conformance/src/states/types.ts";

const PUBLIC_PARTS = new Set(["text", "thinking", "redacted_thinking", "file", "tool_use", "tool_result"]);
const PUBLIC_STATES = new Set(["input_available", "output_available", "output_error", "output_denied"]);

/** The optional field of a request body that each field capability is, when the body uses it. */
function fieldUsed(cap: Capability, route: string, b: any): string | undefined {
  if (route === "interviews") {
    const fields = ({ hold: ["hold"], "created-at": ["created_at", "completed_at"], "interview-link": ["interview_link"], "respondent-id": ["respondent_id"] } as Partial<Record<Capability, string[]>>)[cap];
    return fields?.find((f) => b?.[f] !== undefined);
  }
  if (route === "releases") return cap === "release-url" && b?.vcs_pr_url !== undefined ? "vcs_pr_url" : undefined;
  if (route !== "chats") return undefined;
  const messages: any[] = Array.isArray(b?.messages) ? b.messages : [];
  if (cap === "hidden-messages") return messages.some((m) => m?.hidden !== undefined) ? "hidden" : undefined;
  if (cap === "recorded-parts") return messages.some((m) => (m?.parts ?? []).some((p: any) => !PUBLIC_PARTS.has(p?.type) || (p?.type === "tool_use" && !PUBLIC_STATES.has(p?.state)))) ? "parts" : undefined;
  if (cap === "chat-fields") return ["created_at", "is_streaming"].find((f) => b?.[f] !== undefined) ?? (messages.some((m) => m?.feedback !== undefined || m?.usage !== undefined || m?.streaming !== undefined) ? "feedback" : undefined);
  return undefined;
}

/** The routes of the surface: path pattern, method, and the capability the operation is. */
const ROUTES: Array<{ re: RegExp; method: string; cap: Capability; route: string }> = [
  { re: /^\/api\/_sim\/studies$/, method: "POST", cap: "plant-study", route: "studies" },
  { re: /^\/api\/_sim\/interviews$/, method: "POST", cap: "plant-interview", route: "interviews" },
  { re: /^\/api\/_sim\/interviews\/([^/]+)\/complete$/, method: "POST", cap: "complete", route: "complete" },
  { re: /^\/api\/_sim\/interviews\/([^/]+)\/abandon$/, method: "POST", cap: "abandon", route: "abandon" },
  { re: /^\/api\/_sim\/studies\/([^/]+)\/status$/, method: "PUT", cap: "study-status", route: "study-status" },
  { re: /^\/api\/_sim\/chats$/, method: "POST", cap: "plant-chat", route: "chats" },
  { re: /^\/api\/_sim\/projects$/, method: "POST", cap: "create-project", route: "projects" },
  { re: /^\/api\/_sim\/releases$/, method: "POST", cap: "plant-release", route: "releases" },
];

const FIELD_CAPS: Capability[] = ["hold", "created-at", "interview-link", "respondent-id", "hidden-messages", "recorded-parts", "chat-fields", "release-url"];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<{ ok: true; value: any } | { ok: false }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export class ForeignSimFront {
  private server: Server | null = null;
  private states: ProviderStates | null = null;
  baseUrl = "";

  /**
   * `framework404`: every 404 of the surface is one body, a missing route's and an unknown interview's alike, as a
   * framework's default 404 is (FastAPI's `HTTPException(404)` answers `{"detail": "Not Found"}` for both).
   */
  constructor(private readonly foreignOrigin: string, private readonly without: readonly Capability[] = [], private readonly framework404 = false) {}

  async start(): Promise<void> {
    this.states = await foreignStates({ baseUrl: `${this.foreignOrigin}/api`, apiKey: "", runId: "front" });
    this.server = createServer((req, res) => void this.handle(req, res).catch((err) => send(res, 500, { status: 500, message: String(err) })));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0];
    if (!path.startsWith("/api/_sim")) return this.forward(req, res);
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    // That server checks the key before routing.
    if (!key || !(await this.known(key))) return send(res, 401, { status: 401, message: "Missing or invalid API key" });
    const at = ROUTES.filter((r) => r.re.test(path) && !this.without.includes(r.cap));
    if (!at.length) return send(res, 404, this.framework404 ? { detail: "Not Found" } : "Not Found");
    const route = at.find((r) => r.method === req.method);
    if (!route) return send(res, 405, { status: 405, message: `${req.method} is not allowed here` }, { allow: at.map((r) => r.method).join(", ") });
    const body = await readJson(req);
    if (!body.ok) return send(res, 422, { status: 422, message: "The body is not valid JSON" });
    const b = body.value;
    for (const cap of FIELD_CAPS.filter((c) => this.without.includes(c))) {
      const field = fieldUsed(cap, route.route, b);
      if (field) return send(res, 422, { status: 422, message: `unknown field: ${field}` });
    }
    const project = { apiKey: key };
    const s = this.states!;
    const id = route.re.exec(path)?.[1];
    try {
      if (route.route === "studies") return send(res, 201, await s.plantStudy!(b, project));
      if (route.route === "interviews") return send(res, 201, await s.plantInterview!(b, project));
      if (route.route === "complete") return send(res, 202, await s.completeInterview!(id!, project));
      if (route.route === "abandon") return send(res, 200, await s.abandonInterview!(id!, project));
      if (route.route === "study-status") return send(res, 200, await s.setStudyStatus!(id!, b?.status, project));
      if (route.route === "chats") return send(res, 201, await s.plantChat!(b, project));
      if (route.route === "releases") return send(res, 201, await s.plantRelease!(b, project));
      return send(res, 201, await s.createProject!(b, project));
    } catch (err) {
      const refused = err as { code?: string; reason?: string; message: string };
      // What that server cannot plant (a release's own URL or analysis instant) is its validation refusing the field.
      if (refused.code === "STATE_UNSUPPORTED") return send(res, 422, { status: 422, message: refused.message });
      if (refused.code !== "STATE_REFUSED") throw err;
      const status = refused.reason === "not-found" ? 404 : refused.reason === "invalid" ? 422 : 409;
      const message = status === 404 ? (id ? `No such ${route.route === "study-status" ? "study" : "interview"}: ${id}` : `No such study: ${b?.study_id}`) : refused.message.replace(/^.*? answered \d+: /, "");
      if (status === 404 && this.framework404) return send(res, 404, { detail: "Not Found" });
      return send(res, status, { status, message });
    }
  }

  /** Whether the foreign server takes this API key. */
  private async known(key: string): Promise<boolean> {
    const res = await fetch(`${this.foreignOrigin}/api/v1/studies?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await res.body?.cancel();
    return res.status !== 401;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.foreignOrigin);
    const upstream = request(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => send(res, 502, { status: 502, message: "the foreign server did not answer" }));
    req.pipe(upstream);
  }
}
