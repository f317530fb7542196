// `npm run mock` serves every operation's examples: each named example of each status comes back when asked
// for with `Prefer`, equal to the contract's example and valid against the response schema.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContractAjv, describeErrors } from "../../../lib/openapi-ajv.ts";
import { freePort, root, waitUntilUp } from "../../../test/support/processes.ts";
import { sleep } from "../../../test/support/wait.ts";

const contract = createContractAjv();
const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
let mock: ChildProcess;
let base = "";
let startupMs = 0;

beforeAll(async () => {
  const port = await freePort();
  const started = Date.now();
  mock = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "server/mock/run.ts"], { cwd: root, env: { ...process.env, MOCK_PORT: String(port), MOCK_QUIET: "1" }, stdio: "ignore" });
  base = `http://127.0.0.1:${port}/api`;
  // Up means Prism answers through the front door (a 503 envelope while Prism starts).
  const deadline = Date.now() + 60_000;
  await waitUntilUp(`${base}/v1/studies`, 60_000, mock);
  while ((await fetch(`${base}/v1/studies`)).status === 503 && Date.now() < deadline) await sleep(200);
  startupMs = Date.now() - started;
}, 90_000);
afterAll(() => void mock?.kill("SIGTERM"));

interface Case { name: string; method: string; path: string; status: string; title: string; value: unknown; schema: string; body?: unknown; public: boolean }
const cases: Case[] = [];
for (const [path, item] of Object.entries<any>(contract.doc.paths)) {
  for (const [method, op] of Object.entries<any>(item)) {
    const requestExample = Object.values<any>(op.requestBody?.content?.["application/json"]?.examples ?? {})[0]?.value;
    const isPublic = (op.security ?? []).some((s: object) => "PublicSdkKey" in s);
    for (const [status, res] of Object.entries<any>(op.responses)) {
      for (const [title, ex] of Object.entries<any>(res.content?.["application/json"]?.examples ?? {})) {
        cases.push({
          name: `${method.toUpperCase()} ${path} ${status} "${title}"`, method: method.toUpperCase(), path: path.replace("{id}", "c0ffee00-1234-4abc-8def-0123456789ab"),
          status, title, value: ex.value, schema: `#/paths/${esc(path)}/${method}/responses/${status}/content/application~1json/schema`, body: requestExample, public: isPublic,
        });
      }
    }
  }
}

describe("npm run mock", () => {
  it("starts, and every operation has examples to serve", () => {
    expect(cases.length).toBeGreaterThan(40);
    expect(new Set(cases.map((c) => `${c.method} ${c.path}`)).size).toBe(Object.values<any>(contract.doc.paths).reduce((n, item) => n + Object.keys(item).length, 0));
    console.log(`Prism started in ${startupMs} ms`);
  });

  it("serves under /api like the service, and at the root for earlier clients", async () => {
    const headers = { authorization: "Bearer svc_live_acme_0123456789abcdef0123456789abcdef" };
    const viaApi = await fetch(`${base}/v1/studies`, { headers });
    const viaRoot = await fetch(`${base.replace(/\/api$/, "")}/v1/studies`, { headers });
    expect([viaApi.status, viaRoot.status]).toEqual([200, 200]);
    expect(await viaApi.json()).toEqual(await viaRoot.json());
  });

  it.each(cases)("$name", async (c) => {
    const headers: Record<string, string> = { prefer: `code=${c.status}, example=${c.title}` };
    if (c.public) headers["x-public-key"] = "pk_live_acme_0123456789abcdef0123456789abcdef";
    else headers.authorization = "Bearer svc_live_acme_0123456789abcdef0123456789abcdef";
    if (c.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${base}${c.path}`, { method: c.method, headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
    expect(res.status).toBe(Number(c.status));
    const body = await res.json();
    expect(body).toEqual(c.value);
    const validate = contract.validator(c.schema);
    expect(validate(body), describeErrors(validate.errors)).toBe(true);
  });
});
