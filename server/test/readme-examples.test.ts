// The root README's runnable examples, extracted from README.md and run as written through bash: `npm start`,
// `npm run mock`, `npm run example:receiver` and the curl lines, with only the ports changed (to free ones) and the
// README's own placeholders filled where it asks the reader to fill them. The client-team loop (`npx api-sandbox ...`)
// runs from the installed package in test/package/matrix.test.ts.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { sleep } from "../../test/support/wait.ts";

const run = promisify(execFile);
const README = readFileSync(join(root, "README.md"), "utf8");
const KEY = "svc_live_acme_0123456789abcdef0123456789abcdef";
const groups: ChildProcess[] = [];
const ports = { sandbox: 0, mock: 0, receiver: 0 };

/** The commands of the first ```sh block after `heading`: continuations joined, comments dropped. */
function commands(heading: string): string[] {
  const at = README.indexOf(heading);
  expect(at, `README heading ${heading}`).toBeGreaterThanOrEqual(0);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(at))![1];
  return block
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((l) => l.replace(/(^|\s)#\s.*$/, "").trim())
    .filter(Boolean);
}

/**
 * The README's ports, mapped to this run's free ones in one pass: replaced one after another, a free port beginning
 * with a later one's digits was replaced again (the CI of 289442b: the sandbox's URL got another port and a digit
 * more, past 65535, and curl refused it).
 */
const README_PORTS: Record<string, keyof typeof ports> = { "4010": "sandbox", "4011": "mock", "4020": "receiver" };
const localize = (line: string) => line.replace(/127\.0\.0\.1:(4010|4011|4020)\b/g, (_, port: string) => `127.0.0.1:${ports[README_PORTS[port]]}`);

const env = () => ({ ...process.env, KEY, PORT: String(ports.sandbox), MOCK_PORT: String(ports.mock), MOCK_QUIET: "1", LOG_LEVEL: "silent", SIM_PROCESSING_MS: "50" });

/** A one-shot line; resolves with its stdout, failing with what it printed when it exits non-zero. */
async function sh(line: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const r: { code?: number; stdout?: string; stderr?: string } = await run("bash", ["-c", localize(line)], { cwd: root, encoding: "utf8", env: { ...env(), ...extraEnv } }).catch((err) => err);
  expect(r.code ?? 0, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return r.stdout ?? "";
}

/** A long-running line, in its own process group (ended after the tests); its output is collected. */
function background(line: string, extraEnv: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  const child = spawn("bash", ["-c", localize(line)], { cwd: root, env: { ...env(), ...extraEnv }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  groups.push(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, out: () => out };
}

beforeAll(async () => {
  ports.sandbox = await freePort();
  ports.mock = await freePort();
  ports.receiver = await freePort();
  // The quick start's first line, without its install (the test runs inside an installed checkout).
  const [quick] = commands("# Project Data API");
  expect(quick).toBe("npm install && npm start");
  const sandbox = background("npm start");
  const mock = background(commands("## The Prism mock")[0]);
  await waitUntilUp(`http://127.0.0.1:${ports.sandbox}/api/v1/studies`, 60_000, sandbox.child);
  await waitUntilUp(`http://127.0.0.1:${ports.mock}/api/v1/studies`, 60_000, mock.child);
  // The mock's front answers 503 until Prism behind it has loaded the contract.
  for (const t = Date.now(); Date.now() - t < 60_000; await sleep(200)) {
    const res = await fetch(`http://127.0.0.1:${ports.mock}/api/v1/studies`, { headers: { authorization: `Bearer ${KEY}` } });
    await res.arrayBuffer();
    if (res.status !== 503) break;
  }
}, 120_000);

afterAll(() => {
  for (const c of groups) {
    try {
      process.kill(-c.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

describe("the README's examples, run as written", () => {
  it("the quick start's curl lists chats", async () => {
    const curl = commands("# Project Data API").find((l) => l.startsWith("curl"))!;
    const body = JSON.parse(await sh(curl));
    expect(body.object).toBe("list");
    expect(body.data.length).toBeGreaterThan(0);
  });

  it("the webhook walk-through: register, run the example receiver, simulate an interview, and the receiver verifies it", async () => {
    const [register, receiverLine, simulate] = commands("### Webhooks: `interview.completed`");
    const created = JSON.parse(await sh(register));
    expect(created.signing_secret).toMatch(/^whsec_/);
    // Step 2 says `WEBHOOK_SECRET=whsec_...`: the reader pastes the secret of step 1.
    expect(receiverLine).toContain("WEBHOOK_SECRET=whsec_...");
    const receiver = background(receiverLine.replace("whsec_...", created.signing_secret), { PORT: String(ports.receiver) });
    await waitUntilUp(`http://127.0.0.1:${ports.receiver}/hook`, 60_000, receiver.child);

    // Step 3 as printed still holds the placeholder: a clear 400 in the error envelope, never a crash.
    expect(simulate).toContain("<study id>");
    const refused = JSON.parse(await sh(simulate));
    expect(refused.error.type).toBe("invalid_request_error");
    // With an id of an active study from GET /api/v1/studies, as the README says.
    const studies = JSON.parse(await sh(`curl -s -H "Authorization: Bearer $KEY" http://127.0.0.1:4010/api/v1/studies`));
    const study = studies.data.find((s: { accepting_responses: boolean }) => s.accepting_responses);
    const interview = JSON.parse(await sh(simulate.replace("<study id>", study.id)));
    expect(interview.id).toMatch(/^[0-9a-f-]{36}$/);
    const deadline = Date.now() + 20_000;
    while (!receiver.out().includes(`interview.completed interview ${interview.id}`) && Date.now() < deadline) await sleep(100);
    expect(receiver.out()).toContain(`interview.completed interview ${interview.id}`);
    expect(receiver.out()).not.toContain("rejected delivery");
  }, 90_000);

  it("the mock's curl lines: the examples, a chosen example by status and title, and a chosen status", async () => {
    const curls = commands("## The Prism mock").filter((l) => l.startsWith("curl"));
    expect(curls).toHaveLength(3);
    const list = JSON.parse(await sh(curls[0]));
    expect(list.object).toBe("list");
    const notFound = JSON.parse(await sh(curls[1]));
    expect(notFound.error.type).toBe("not_found_error");
    const unauthorized = JSON.parse(await sh(curls[2]));
    expect(unauthorized.error.type).toBe("authentication_error");
  }, 60_000);
});
