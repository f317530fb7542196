/**
 * What a user of each package writes, taken from its README: a TypeScript file that must pass `tsc --strict` with
 * full library checks, and an ES module that must run under plain Node. Used by matrix.test.ts.
 */
import { AFTER_2_0_0, ALL_CAPABILITIES } from "../../conformance/src/states/capabilities.ts";

export interface Consumer {
  /** consumer.ts: type-checked, never run. */
  types: string;
  /** consumer.mjs: run with Node; prints one JSON line that the test compares. */
  run?: string;
  /** What `run` prints. */
  expected?: unknown;
  /** compilerOptions.lib of the consumer (its runtime's globals). */
  lib: string[];
  /** compilerOptions.types of the consumer. */
  typeRoots?: string[];
  jsx?: boolean;
}

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";

export const CONSUMERS: Record<string, Consumer> = {
  generated: {
    lib: ["ES2022"],
    types: `
      import type { components, paths } from "@service/api-contract";
      import type { components as full } from "@service/api-contract/schema";
      export type Study = components["schemas"]["Study"];
      export type StudiesQuery = paths["/v1/studies"]["get"]["parameters"]["query"];
      export const status: Study["status"] = "active";
      export type SimRequest = full["schemas"] extends object ? true : false;
    `,
    run: `
      import { readFileSync } from "node:fs";
      import { createRequire } from "node:module";
      import api from "@service/api-contract/api.json" with { type: "json" };
      import full from "@service/api-contract/openapi.json" with { type: "json" };
      const require = createRequire(import.meta.url);
      const yaml = readFileSync(require.resolve("@service/api-contract/openapi.yaml"), "utf8");
      const tsp = readFileSync(require.resolve("@service/api-contract/spec/main.tsp"), "utf8");
      console.log(JSON.stringify({
        openapi: api.openapi, version: api.info.version === full.info.version,
        apiHasSim: Object.keys(api.paths).some((p) => p.startsWith("/_sim")), fullHasSim: Object.keys(full.paths).some((p) => p.startsWith("/_sim")),
        yaml: yaml.includes("openapi: 3.1"), tsp: tsp.includes("@service"),
      }));
    `,
    expected: { openapi: "3.1.0", version: true, apiHasSim: false, fullHasSim: true, yaml: true, tsp: true },
  },
  sdk: {
    lib: ["ES2022", "DOM"],
    types: `
      import { ApiConnectionError, ApiError, ApiTimeoutError, createApiClient, paginate, type components } from "@service/api-client";
      const client = createApiClient({ baseUrl: "https://service.example/api", apiKey: "svc_live_x" });
      export async function firstStudy(): Promise<components["schemas"]["StudySummary"] | undefined> {
        const { data } = await client.GET("/v1/studies", { params: { query: { limit: 1 } } });
        return data?.data[0];
      }
      export async function allMessages(chat: string): Promise<string[]> {
        const ids: string[] = [];
        for await (const m of paginate(client, "/v1/chats/{id}/messages", { path: { id: chat }, query: { limit: 100 } })) ids.push(m.id);
        return ids;
      }
      export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
      export const unreachable = (e: unknown): string | undefined => (e instanceof ApiConnectionError ? e.code : undefined);
      export const timedOut = (e: unknown): boolean => e instanceof ApiTimeoutError;
      export const patient = createApiClient({ baseUrl: "https://service.example/api", apiKey: "svc_live_x", timeoutMs: 5_000 });
    `,
    run: `
      import { createApiClient, paginate } from "@service/api-client";
      const client = createApiClient({ baseUrl: process.env.BASE_URL, apiKey: "${ACME}" });
      const ids = [];
      for await (const s of paginate(client, "/v1/studies", { query: { limit: 1 } })) ids.push(s.id);
      const missing = await client.GET("/v1/studies/{id}", { params: { path: { id: "00000000-0000-4000-8000-000000000000" } } });
      // From the tarball: a refused connection and a silent endpoint reject with the package's own error classes.
      const { ApiConnectionError, ApiTimeoutError } = await import("@service/api-client");
      const { createServer } = await import("node:http");
      const silent = createServer(() => undefined);
      await new Promise((r) => silent.listen(0, "127.0.0.1", r));
      // A port where nothing listens (fetch refuses some well-known ports outright, "bad port", with no system code).
      const gone = createServer();
      await new Promise((r) => gone.listen(0, "127.0.0.1", r));
      const closedPort = gone.address().port;
      await new Promise((r) => gone.close(r));
      const refused = await createApiClient({ baseUrl: \`http://127.0.0.1:\${closedPort}/api\`, apiKey: "k", retry: false }).GET("/v1/studies").catch((e) => e);
      const slow = await createApiClient({ baseUrl: \`http://127.0.0.1:\${silent.address().port}/api\`, apiKey: "k", retry: false, timeoutMs: 200 }).GET("/v1/studies").catch((e) => e);
      silent.closeAllConnections();
      silent.close();
      console.log(JSON.stringify({
        studies: ids.length > 1, unique: new Set(ids).size === ids.length, status: missing.response.status,
        refused: refused instanceof ApiConnectionError && !(refused instanceof TypeError) ? refused.code ?? refused.message : String(refused),
        timeout: slow instanceof ApiTimeoutError,
      }));
    `,
    expected: { studies: true, unique: true, status: 404, refused: "ECONNREFUSED", timeout: true },
  },
  receiver: {
    lib: ["ES2022", "DOM"],
    types: `
      import { createDeduplicator, signWebhookBody, verifiedWebhook, verifyWebhookSignature, webhookMiddleware, type InterviewCompletedEvent } from "@service/webhook-receiver";
      import { rejectionResponse, verifyWebhookRequest } from "@service/webhook-receiver/web";
      // A Next.js route handler.
      export async function POST(request: Request): Promise<Response> {
        const result = await verifyWebhookRequest(request, { secrets: "whsec" });
        if (!result.ok) return rejectionResponse(result);
        const id: string = result.payload.data.interview_id;
        return new Response(id, { status: 200 });
      }
      export const middleware = webhookMiddleware({ secrets: ["a", "b"], toleranceMs: 600_000 });
      export const readEvent = (req: object): InterviewCompletedEvent => verifiedWebhook(req).payload;
      export const ok: boolean = verifyWebhookSignature(new Uint8Array([1]), signWebhookBody("x", "k"), "k").ok;
      export const dedupe = createDeduplicator({ ttlMs: 60_000 });
    `,
    run: `
      import { createServer } from "node:http";
      import { signWebhookBody, verifiedWebhook, webhookMiddleware } from "@service/webhook-receiver";
      import { verifyWebhookRequest } from "@service/webhook-receiver/web";
      const body = JSON.stringify({ event: "interview.completed", timestamp: new Date().toISOString(), data: { interview_id: "i-1", session_id: "i-1" } });
      const sig = signWebhookBody(body, "k");
      const web = await verifyWebhookRequest(new Request("http://x/hook", { method: "POST", body, headers: { "content-type": "application/json", "x-webhook-signature": sig } }), { secrets: "k" });
      const forged = await verifyWebhookRequest(new Request("http://x/hook", { method: "POST", body: body + " ", headers: { "content-type": "application/json", "x-webhook-signature": sig } }), { secrets: "k" });
      // The Express middleware on a bare node:http server: it needs nothing of Express.
      const mw = webhookMiddleware({ secrets: "k" });
      const server = createServer((req, res) => mw(req, res, () => { res.statusCode = 200; res.end(verifiedWebhook(req).payload.data.interview_id); }));
      await new Promise((r) => server.listen(0, "127.0.0.1", r));
      const url = "http://127.0.0.1:" + server.address().port + "/hook";
      const good = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "x-webhook-signature": sig } });
      const bad = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "x-webhook-signature": "sha256=" + "0".repeat(64) } });
      console.log(JSON.stringify({ web: web.ok && web.payload.data.interview_id, forged: forged.ok ? "accepted" : forged.reason, node: [good.status, await good.text()], bad: bad.status }));
      server.close();
    `,
    expected: { web: "i-1", forged: "signature_mismatch", node: [200, "i-1"], bad: 401 },
  },
  metrics: {
    lib: ["ES2022"],
    types: `
      import { compareVariants, computeMetric, computeMetricFromRows, MetricInputError, readFiles, readOut, type MetricDefinition, type MetricResult, type ReadOut } from "@service/success-metrics";
      const definition: MetricDefinition = { type: "retention", event: "purchase", threshold: 2, window_days: 7 };
      export const result: MetricResult = computeMetric(definition, { exposures: [], events: [] });
      export const compare = (r: MetricResult) => compareVariants(r, "control", "treatment");
      export const isInputError = (e: unknown) => e instanceof MetricInputError;
      export const fromFiles = (): Promise<MetricResult> => computeMetricFromRows(definition, readFiles("x.csv", "e.jsonl", { timezone: "UTC" }), { cuped: true });
      export const readout = (r: MetricResult): ReadOut => readOut(r, "control", ["b", "c"], { confidence: 0.9, split: { control: 2, b: 1, c: 1 } });
    `,
    run: `
      import { writeFileSync } from "node:fs";
      import { computeMetric, computeMetricFromRows, readFiles, readOut } from "@service/success-metrics";
      const data = { exposures: [{ user_id: "a", variant: "c", exposed_at: "2026-01-01T00:00:00Z" }, { user_id: "b", variant: "c", exposed_at: "2026-01-01T00:00:00Z" }], events: [{ user_id: "a", event: "e", timestamp: "2026-01-01T01:00:00Z" }] };
      const memory = computeMetric({ type: "conversion", event: "e" }, data, { as_of: "2026-02-01T00:00:00Z" });
      let sql;
      try { await import("@service/success-metrics/sql").then((m) => m.computeMetric({ type: "conversion", event: "e" }, data)); sql = "ran"; } catch (err) { sql = err.message; }
      // The input layer from the installed package: a semicolon CSV, wall-clock times in a named zone, JSON Lines.
      writeFileSync("x.csv", "user_id;variant;exposed_at\\n a;c;2026-03-29 01:30:00\\nb;t;2026-03-29 01:30:00\\n");
      writeFileSync("e.jsonl", JSON.stringify({ user_id: " a", event: "e", timestamp: "2026-03-29T01:00:00Z" }) + "\\n");
      const files = await computeMetricFromRows({ type: "conversion", event: "e" }, readFiles("x.csv", "e.jsonl", { timezone: "Europe/Paris" }), { timezone: "Europe/Paris" });
      const out = readOut(files, "c", ["t"]);
      console.log(JSON.stringify({ memory: memory.variants.c.value, sql, files: [files.variants.c.value, files.as_of], srm: out.srm.df }));
    `,
    expected: { memory: 0.5, sql: "The SQL engine needs DuckDB: install the optional peer dependency with `npm install @duckdb/node-api` (the in-memory engine needs nothing more).", files: [1, "2026-03-29T01:00:00.001Z"], srm: 1 },
  },
  conformance: {
    lib: ["ES2022"],
    types: `
      import { defineStates, StateRefused, type PlantStudyInput, type ProviderStates } from "@service/api-conformance/states";
      export default defineStates((env) => ({
        capabilities: () => ["plant-study"],
        plantStudy: async (input: PlantStudyInput, project) => {
          if (!input.name) throw new StateRefused("invalid", "a study needs a name");
          return { id: \`\${env.runId}-\${project.apiKey.length}\` };
        },
      }));
      export const none: ProviderStates = {};
    `,
    run: `
      import { ALL_CAPABILITIES, AFTER_2_0_0, StateRefused, defineStates } from "@service/api-conformance/states";
      const module = defineStates(() => ({}));
      console.log(JSON.stringify({ code: new StateRefused("final", "done").code, capabilities: ALL_CAPABILITIES.length, after: AFTER_2_0_0.length, module: typeof module }));
    `,
    // The tarball's lists are the checkout's.
    expected: { code: "STATE_REFUSED", capabilities: ALL_CAPABILITIES.length, after: AFTER_2_0_0.length, module: "function" },
  },
  mobile: {
    lib: ["ES2023"],
    jsx: true,
    types: `
      import { createInterviewClient, InterviewHost, useInterviews, type InterviewClient } from "@service/interviews-react-native";
      const seen: string[] = [];
      // AsyncStorage's shape.
      const storage = { getItem: async (_k: string) => null as string | null, setItem: async (_k: string, _v: string) => {}, removeItem: async (_k: string) => {} };
      export const interviews: InterviewClient = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", referenceId: null,
        storage, mapTrackProperties: (_e, p) => ({ plan: (p as { plan?: string }).plan ?? null }), onDiagnostic: (d) => void seen.push(d.type) });
      const segment = { track(name: string, props?: object) { return name + JSON.stringify(props); }, flush() { return 1; } };
      export const analytics = interviews.wrapTrackClient(segment);
      export const tracked: string = analytics.track("purchase", { plan: "pro" });
      export async function onUrl(url: string): Promise<boolean> { return (await interviews.handleLink(url)).handled; }
      export function Badge() { const { pendingInvite } = useInterviews(interviews); return pendingInvite ? null : null; }
      export const host = <InterviewHost client={interviews} allowedOrigins={["https://cdn.example.net"]} onCompleted={(_e, sessionId) => void seen.push(sessionId)} onClosed={(_e, reason) => void seen.push(reason)} />;
      // The Jest entry's types, as an app's tests use them.
      import { createScriptedClient, interviewWebView, postFromInterview, type ScriptedClient } from "@service/interviews-react-native/jest";
      export const scripted: ScriptedClient = createScriptedClient();
      export const scriptedHost = <InterviewHost client={scripted} />;
      export function drive(): string | undefined { scripted.offerInvite({ prompt: { title: "T", body: "B", acceptLabel: "A", dismissLabel: "D" } }); postFromInterview({ type: "interview.loaded" }); return interviewWebView()?.source?.uri; }
    `,
    run: `
      import { createInterviewClient, inviteCodeOf } from "@service/interviews-react-native/core";
      const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", fetch: async () => ({ ok: false, status: 503, text: async () => "" }) });
      console.log(JSON.stringify({ code: inviteCodeOf("https://api.example.com/i/ABCDEFGH"), snapshot: client.getSnapshot() }));
    `,
    expected: { code: "ABCDEFGH", snapshot: { pendingInvite: null, activeLaunch: null } },
  },
};
