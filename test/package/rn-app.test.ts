// An app team's first test, in a fresh React Native app, at both ends of the peer ranges: the packed tarball with
// the peers a new app resolves today (React Native 0.86, react-native-webview 16, AsyncStorage 3) and the oldest the
// ranges allow (React Native 0.78, react-native-webview 13.0, safe-area 5.0), React Native's own Jest preset with no
// transform settings for the package, and the package's `/jest` setup. The test imports the package as the README says, renders
// InterviewHost driven by the scripted client, and runs the real client on AsyncStorage's own Jest mock.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const mobile = JSON.parse(readFileSync(join(root, "mobile/package.json"), "utf8"));
const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

interface AppTemplate {
  /** Installed into the fresh app, with the packed tarball. */
  deps: Record<string, string>;
  /** The app's jest.config.js preset: React Native's own, as its template of that version has it. */
  preset: string;
  /** AsyncStorage's own Jest mock, where that version ships it. */
  asyncStorageMock: string;
  /** Packages shipping ES modules only that the app itself lets Babel transform (AsyncStorage 3's documented step). */
  transform?: string;
}

/**
 * Both ends of the peer ranges (react >=19.1, react-native >=0.78, react-native-webview >=13 <17,
 * react-native-safe-area-context >=5 <6), each with the template's test tooling of that React Native version.
 */
export const APPS: Record<"newest" | "oldest", AppTemplate> = {
  // What `npx @react-native-community/cli init` gives an app today.
  newest: {
    deps: {
      react: "19.3.1",
      "react-native": mobile.devDependencies["react-native"],
      "react-native-webview": "16.0.0",
      "react-native-safe-area-context": "5.11.1",
      "@react-native-async-storage/async-storage": "3.1.1",
      "@react-native/babel-preset": mobile.devDependencies["@react-native/babel-preset"],
      "@react-native/jest-preset": mobile.devDependencies["@react-native/jest-preset"],
      "@testing-library/react-native": mobile.devDependencies["@testing-library/react-native"],
      "test-renderer": mobile.devDependencies["test-renderer"],
      jest: mobile.devDependencies.jest,
    },
    preset: "@react-native/jest-preset",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest",
    transform: "@react-native-async-storage",
  },
  oldest: {
    deps: {
      react: "19.1.0",
      "react-native": "0.78.0",
      "react-native-webview": "13.0.0",
      "react-native-safe-area-context": "5.0.0",
      "@react-native-async-storage/async-storage": "2.2.0",
      "@react-native/babel-preset": "0.78.0",
      "@testing-library/react-native": "13.3.3",
      "react-test-renderer": "19.1.0",
      jest: "29.7.0",
      "babel-jest": "29.7.0",
    },
    preset: "react-native",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest/async-storage-mock",
  },
};

const APP_TEST = `
import AsyncStorage from "@react-native-async-storage/async-storage";
import { act, fireEvent, render, screen } from "@testing-library/react-native";
import { createInterviewClient, InterviewHost } from "@service/interviews-react-native";
import { createScriptedClient, interviewWebView, postFromInterview } from "@service/interviews-react-native/jest";

test("InterviewHost renders, driven by the scripted client", async () => {
  const client = createScriptedClient();
  const completed = jest.fn();
  await render(<InterviewHost client={client} onCompleted={completed} />);
  await act(async () => void client.offerInvite());
  expect(screen.getByText("Got 5 minutes?")).toBeTruthy();
  await act(async () => fireEvent.press(screen.getByLabelText("Start interview")));
  expect(client.startPendingInvite).toHaveBeenCalledTimes(1);
  expect(screen.getByTestId("interview-webview")).toBeTruthy();
  expect(interviewWebView().source).toEqual({ uri: "https://interviews.example.com/s/test?launch=1" });
  await act(async () => postFromInterview({ type: "interview.completed", sessionId: "s1" }));
  expect(completed).toHaveBeenCalledWith(expect.objectContaining({ type: "interview.completed" }), "s1");
});

test("the real client keeps its config in AsyncStorage (the library's own Jest mock)", async () => {
  const config = { object: "participant_config", ttlSeconds: 300, triggerRules: [], audienceMatches: [] };
  const fetch = jest.fn(async () => ({ ok: true, status: 200, text: async () => JSON.stringify(config) }));
  const client = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", linkHosts: ["interviews.example.com"], storage: AsyncStorage, fetch });
  await client.ready();
  await new Promise((r) => setTimeout(r, 0));
  expect(JSON.parse(await AsyncStorage.getItem("interviews.participant-config.v1")).config).toEqual(config);
  const again = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", storage: AsyncStorage, fetch });
  await again.ready();
  expect(fetch).toHaveBeenCalledTimes(1); // the restart within the time-to-live made no request
});
`;

const apps: Record<string, string> = {};
const exec = (cmd: string, args: string[], cwd: string) =>
  new Promise<void>((ok, fail) => execFile(cmd, args, { cwd, env: npmEnv, timeout: 600_000, maxBuffer: 1 << 26 }, (err, _out, stderr) => (err ? fail(new Error(`${cmd} ${args.join(" ")}: ${stderr}`)) : ok())));

beforeAll(async () => {
  const work = mkdtempSync(join(tmpdir(), "rn-app-"));
  execFileSync("npm", ["pack", "-w", "mobile", "--pack-destination", work], { cwd: root, env: npmEnv, stdio: "pipe" });
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz"))!);
  await Promise.all(Object.entries(APPS).map(async ([name, t]) => {
    const app = join(work, name);
    apps[name] = app;
    mkdirSync(join(app, "__tests__"), { recursive: true });
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: `fresh-app-${name}`, version: "0.0.1", private: true, scripts: { test: "jest" } }));
    // The template's files, plus the one line the README asks for: the package's Jest setup.
    writeFileSync(join(app, "babel.config.js"), 'module.exports = { presets: ["module:@react-native/babel-preset"] };\n');
    writeFileSync(join(app, "jest.config.js"), [
      "module.exports = {",
      `  preset: ${JSON.stringify(t.preset)},`,
      '  setupFiles: ["@service/interviews-react-native/jest", "./jest.setup.js"],',
      // The preset's own pattern, with AsyncStorage added where it ships ES modules only: nothing for our package.
      ...(t.transform ? [`  transformIgnorePatterns: ["node_modules/(?!((jest-)?react-native|@react-native(-community)?|${t.transform})/)"],`] : []),
      "};",
      "",
    ].join("\n"));
    writeFileSync(join(app, "jest.setup.js"), `jest.mock("@react-native-async-storage/async-storage", () => require(${JSON.stringify(t.asyncStorageMock)}));\n`);
    writeFileSync(join(app, "__tests__", "interviews.test.tsx"), APP_TEST);
    await exec("npm", ["install", "--prefer-offline", "--no-package-lock", tarball, ...Object.entries(t.deps).map(([n, v]) => `${n}@${v}`)], app);
  }));
}, 660_000);

describe.each(Object.keys(APPS))("a fresh React Native app with the %s peers", (name) => {
  it("runs a Jest test that imports the package as the README says, under React Native's preset with no transform settings for it", () => {
    const app = apps[name];
    // A generous timeout: the first test pays for Babel transforming React Native cold, on a busy 2-core machine.
    const run = spawnSync("npx", ["jest", "--ci", "--colors=false", "--testTimeout=60000"], { cwd: app, env: npmEnv, encoding: "utf8" });
    expect(run.status, `the app's Jest run:\n${run.stderr}\n${run.stdout}`).toBe(0);
    expect(run.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
    const installed = (pkg: string) => JSON.parse(readFileSync(join(app, "node_modules", pkg, "package.json"), "utf8")).version;
    for (const pkg of ["react-native", "react-native-webview", "react-native-safe-area-context", "@react-native-async-storage/async-storage"]) expect(installed(pkg)).toBe(APPS[name as "newest"].deps[pkg]);
  }, 300_000);
});
