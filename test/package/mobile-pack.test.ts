// `@service/interviews-react-native` as an app team gets it: `npm pack`, install the tarball into a fresh app with
// its peer dependencies (react, react-native, react-native-webview), type-check app code against it with tsc in
// strict mode, and import the core at run time; the React Native entry imports nothing but its peers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/processes.ts";

const app = mkdtempSync(join(tmpdir(), "rn-app-"));
const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });
const pkgDir = join(app, "node_modules/@service/interviews-react-native");
let files: string[] = [];

beforeAll(() => {
  // dist/ is built by `npm test` before the tests run; packing without prepack keeps other tests' dist/ in place.
  const out = npm(["pack", "-w", "mobile", "--ignore-scripts", "--json", "--pack-destination", app], root);
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = packed[0].files.map((f) => f.path);
  const versions = JSON.parse(readFileSync(join(root, "mobile/package.json"), "utf8")).devDependencies;
  writeFileSync(join(app, "package.json"), JSON.stringify({
    name: "rn-app", version: "1.0.0", private: true, type: "module",
    dependencies: { react: "19.3.1", "react-native": versions["react-native"], "react-native-webview": versions["react-native-webview"], "@types/react": "19.3.0", typescript: "5.9.3" },
  }));
  npm(["install", "--prefer-offline", "--no-audit", "--no-fund", join(app, packed[0].filename)], app);
}, 300_000);

describe("the packed React Native library, installed into a fresh app", () => {
  it("ships built output with declarations and nothing of the repository", () => {
    expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/core/index.js", "dist/native/InterviewHost.js", "dist/contract.d.ts"]));
    expect(files.filter((f) => !f.startsWith("dist/") && !["package.json", "README.md"].includes(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual(["react", "react-native", "react-native-webview"]);
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it("type-checks app code (client, wrapped analytics, host, hook, deep links) with tsc --strict", () => {
    writeFileSync(join(app, "App.tsx"), `
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
    `);
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, jsx: "react-jsx", module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: true, lib: ["ES2023"], types: [] }, files: ["App.tsx"] }));
    execFileSync(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app, encoding: "utf8" });
  }, 60_000);

  it("imports the core at run time, and the React Native entry imports only its peers", () => {
    writeFileSync(join(app, "core.mjs"), `
      import { createInterviewClient, inviteCodeOf } from "@service/interviews-react-native/core";
      const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", fetch: async () => ({ ok: false, status: 503, text: async () => "" }) });
      console.log(JSON.stringify({ code: inviteCodeOf("https://api.example.com/i/ABCDEFGH"), snapshot: client.getSnapshot() }));
    `);
    expect(JSON.parse(execFileSync(process.execPath, ["core.mjs"], { cwd: app, encoding: "utf8" }))).toEqual({ code: "ABCDEFGH", snapshot: { pendingInvite: null, activeLaunch: null } });
    const walk = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
    const bare = new Set<string>();
    for (const file of walk(join(pkgDir, "dist")).filter((f) => f.endsWith(".js"))) {
      for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*["']([^"'.][^"']*)["']/g)) bare.add(m[1]);
    }
    expect([...bare].sort()).toEqual(["react", "react-native", "react-native-webview", "react/jsx-runtime"]);
  });
});
