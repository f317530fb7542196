// The packaged core runs where React Native runs it: bundled from dist/ (what Metro would take), executed in a
// context that offers only React Native's globals (no crypto, no URL, no AbortSignal.timeout, no TextEncoder,
// no structuredClone), through a whole invite flow; and compiled by the Hermes compiler that React Native ships.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { buildSync } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

const mobile = fileURLToPath(new URL("../", import.meta.url));
let bundle = "";

beforeAll(() => {
  // npm test builds dist/ first; the bundle is the core as an app would ship it.
  const out = buildSync({ entryPoints: [join(mobile, "dist/core/index.js")], bundle: true, format: "iife", globalName: "InterviewsCore", target: "es2019", write: false, platform: "neutral" });
  bundle = out.outputFiles[0].text;
});

/** React Native's globals, as Hermes offers them to app code; nothing of Node or the browser beyond them. */
function reactNativeContext(fetch: (url: string, init?: any) => Promise<unknown>) {
  const nativeAbortController = AbortController;
  return vm.createContext({
    setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, console,
    performance: { now: () => performance.now() },
    fetch,
    // React Native's AbortController; its AbortSignal has no static timeout().
    AbortController: class extends nativeAbortController {},
  });
}

const config = {
  object: "participant_config", ttlSeconds: 300, audienceMatches: [],
  triggerRules: [{ launchRuleId: "rule_1", eventName: "purchase", experimentId: "exp_1", launchToken: "tok", launchTokenExpiresAt: new Date(Date.now() + 600_000).toISOString(), prompt: { title: "T", body: "B", acceptLabel: "Yes", dismissLabel: "No" } }],
};

describe("the core on React Native's globals", () => {
  it("has none of the web-only globals in the bundle's code paths, and runs an invite flow end to end", async () => {
    const requests: string[] = [];
    const fetch = async (url: string, init?: { method?: string; body?: string; signal?: unknown }) => {
      requests.push(`${init?.method ?? "GET"} ${url.replace("https://interviews.example.com/api", "")}`);
      if (!init?.signal) throw new Error("no abort signal");
      const body = url.includes("/config") ? config : url.endsWith("/launches")
        ? (JSON.parse(init.body ?? "{}").inviteCode === "UNKNOWNCODE" ? { object: "launch", mode: "not_eligible", url: null, expiresAt: null, reason: "unknown_invite" } : { object: "launch", mode: "webview", url: "https://interviews.example.com/s/x", expiresAt: null, reason: null })
        : { duplicate: false };
      return { ok: true, status: 200, text: async () => JSON.stringify(body) };
    };
    const context = reactNativeContext(fetch);
    vm.runInContext(bundle, context);
    const flow = vm.runInContext(`(async () => {
      const diagnostics = [];
      const client = InterviewsCore.createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://interviews.example.com/api", referenceId: "u1",
        metadata: { plan: "pro", nested: { no: 1 } }, onDiagnostic: (d) => diagnostics.push(d.type) });
      await client.ready();
      const analytics = client.wrapTrackClient({ track: (name) => "tracked " + name, flush: () => "flushed" });
      const tracked = analytics.track("purchase", { total: 3 });
      const pending = client.getSnapshot().pendingInvite !== null;
      const started = await client.startPendingInvite();
      const active = client.getSnapshot().activeLaunch && client.getSnapshot().activeLaunch.url;
      client.closeActiveLaunch();
      const ownRoute = await client.handleLink("https://shop.example/i/profile");
      const unknown = await client.handleLink("https://interviews.example.com/i/UNKNOWNCODE");
      const link = await client.handleLink("https://interviews.example.com/interviews/ABCDEFGH");
      return { tracked, flushed: analytics.flush(), pending, started, active, ownRoute, unknown, link, diagnostics };
    })()`, context);
    const result = JSON.parse(JSON.stringify(await flow));
    expect(result).toMatchObject({
      tracked: "tracked purchase", flushed: "flushed", pending: true, started: "webview", active: "https://interviews.example.com/s/x",
      ownRoute: { handled: false, reason: "not_interview_link" }, unknown: { handled: false, reason: "resolve_failed" }, link: { handled: true, mode: "webview" },
    });
    expect(result.diagnostics).toContain("metadata_dropped");
    expect(requests.filter((r) => r.startsWith("GET /v1/interview-participant/config"))).toHaveLength(1);
  });

  it("fails loudly if the core reaches for a web-only global", () => {
    const context = reactNativeContext(async () => ({}));
    for (const name of ["crypto.randomUUID()", "new URL('https://x.example').protocol", "AbortSignal.timeout(1)", "structuredClone({})", "new TextEncoder()"]) {
      expect(() => vm.runInContext(name, context), name).toThrow();
    }
  });
});

describe("the Hermes compiler React Native ships", () => {
  const require = createRequire(join(mobile, "package.json"));
  const hermesc = (() => {
    try {
      const pkg = require.resolve("hermes-compiler/package.json", { paths: [require.resolve("react-native/package.json")] });
      const bin = join(pkg, "..", "hermesc", process.platform === "darwin" ? "osx-bin/hermesc" : process.platform === "win32" ? "win64-bin/hermesc.exe" : "linux64-bin/hermesc");
      return existsSync(bin) ? bin : null;
    } catch {
      return null;
    }
  })();

  it.skipIf(!hermesc)("compiles the bundled core to Hermes bytecode", () => {
    const dir = mkdtempSync(join(tmpdir(), "hermes-"));
    writeFileSync(join(dir, "core.js"), bundle);
    execFileSync(hermesc!, ["-emit-binary", "-out", join(dir, "core.hbc"), join(dir, "core.js")], { stdio: "pipe" });
    expect(existsSync(join(dir, "core.hbc"))).toBe(true);
  });
});
