// An app team's first test, in fresh React Native apps made as `@react-native-community/cli init` makes them, on
// React Native 0.78, 0.79 and the latest template (plus 0.88, ahead of its template, type-checked only): the
// template's own package.json (its React, which is 19.0 on 0.78 and
// 0.79, its Jest, Babel and TypeScript), then the packed tarball and its peers installed with a plain `npm install`
// (no --legacy-peer-deps: an ERESOLVE fails the test). Then, as the app team would:
// - the app's Jest, under React Native's own preset with no transform settings for the package and with the
//   package's `/jest` setup, renders InterviewHost driven by the scripted client and runs the real client on
//   AsyncStorage's own Jest mock;
// - `tsc` with the template's tsconfig plus `strict` and `skipLibCheck: false` compiles the README's quick start,
//   extracted from mobile/README.md (its own placeholders, like `./analytics`, declared beside it).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(import.meta.url), "../../..");
const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

interface AppTemplate {
  /** The template's package.json (dependencies and the devDependencies that test and type-check), as `init` writes it. */
  template: { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  /** What the app team adds: the peers the README names and React Native Testing Library. */
  adds: Record<string, string>;
  /** The app's jest.config.js preset: React Native's own, as its template of that version has it. */
  preset: string;
  /** The template's tsconfig.json `extends`. */
  tsconfig: string;
  /** AsyncStorage's own Jest mock, where that version ships it. */
  asyncStorageMock: string;
  /** Packages shipping ES modules only that the app itself lets Babel transform (AsyncStorage 3's documented step). */
  transform?: string;
  /** False where React Native publishes no Jest preset for the version yet: the app is type-checked only. */
  jest?: false;
}

const TEMPLATE_TOOLING = { "@babel/core": "^7.25.2", "@babel/preset-env": "^7.25.3", "@babel/runtime": "^7.25.0", "@types/jest": "^29.5.13", jest: "^29.6.3" };
const PEERS_OLDEST = { "react-native-webview": "13.0.0", "react-native-safe-area-context": "5.0.0", "@react-native-async-storage/async-storage": "2.2.0", "@testing-library/react-native": "13.3.3" };

/**
 * React Native 0.78 and 0.79 (templates 0.78.3 and 0.79.6, both on React 19.0.0) with the oldest and the newest
 * peers, and the latest app `init` makes (template 0.87.2: React Native 0.87.1, React 19.2.3, TypeScript 6) with the
 * newest peers. React Native 0.88.1 is on npm ahead of its template and Jest preset (0.87's preset cannot resolve
 * 0.88's modules): its app, on the 0.87 template's tooling, is installed and type-checked, not run under Jest.
 */
export const APPS: Record<"0.78" | "0.79" | "latest" | "0.88", AppTemplate> = {
  "0.78": {
    template: {
      dependencies: { react: "19.0.0", "react-native": "0.78.3" },
      devDependencies: { ...TEMPLATE_TOOLING, "@react-native/babel-preset": "0.78.3", "@react-native/typescript-config": "0.78.3", "@types/react": "^19.0.0", "@types/react-test-renderer": "^19.0.0", "react-test-renderer": "19.0.0", typescript: "5.0.4" },
    },
    adds: PEERS_OLDEST,
    preset: "react-native",
    tsconfig: "@react-native/typescript-config/tsconfig.json",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest/async-storage-mock",
  },
  "0.79": {
    template: {
      dependencies: { react: "19.0.0", "react-native": "0.79.6" },
      devDependencies: { ...TEMPLATE_TOOLING, "@react-native/babel-preset": "0.79.6", "@react-native/typescript-config": "0.79.6", "@types/react": "^19.0.0", "@types/react-test-renderer": "^19.0.0", "react-test-renderer": "19.0.0", typescript: "5.0.4" },
    },
    adds: { "react-native-webview": "16.0.0", "react-native-safe-area-context": "5.11.1", "@react-native-async-storage/async-storage": "2.2.0", "@testing-library/react-native": "13.3.3" },
    preset: "react-native",
    tsconfig: "@react-native/typescript-config/tsconfig.json",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest/async-storage-mock",
  },
  latest: {
    template: {
      dependencies: { react: "19.2.3", "react-native": "0.87.1" },
      devDependencies: { ...TEMPLATE_TOOLING, "@react-native/babel-preset": "0.87.1", "@react-native/jest-preset": "0.87.1", "@react-native/typescript-config": "0.87.1", "@types/react": "^19.2.0", "test-renderer": "1.0.0", typescript: "^6.0.3" },
    },
    adds: { "react-native-webview": "16.0.0", "react-native-safe-area-context": "5.11.1", "@react-native-async-storage/async-storage": "3.1.1", "@testing-library/react-native": "14.1.0" },
    preset: "@react-native/jest-preset",
    tsconfig: "@react-native/typescript-config",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest",
    transform: "@react-native-async-storage",
  },
  // The newest React Native on npm, ahead of its template: the quick start must compile there too (its deep-link
  // handler did not: TS2345 on getInitialURL). No 0.88 Jest preset exists, so no Jest run.
  "0.88": {
    template: {
      dependencies: { react: "19.3.1", "react-native": "0.88.1" },
      devDependencies: { ...TEMPLATE_TOOLING, "@react-native/babel-preset": "0.88.1", "@react-native/typescript-config": "0.87.1", "@types/react": "^19.2.0", typescript: "^6.0.3" },
    },
    adds: { "react-native-webview": "16.0.0", "react-native-safe-area-context": "5.11.1", "@react-native-async-storage/async-storage": "3.1.1" },
    preset: "react-native",
    tsconfig: "@react-native/typescript-config",
    asyncStorageMock: "@react-native-async-storage/async-storage/jest",
    jest: false,
  },
};

/** The README's quick start: its `// interviews.ts` and `// App.tsx` blocks, as an app team pastes them. */
export function quickStart(): Record<string, string> {
  const readme = readFileSync(join(root, "mobile/README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Testing your app"));
  const files: Record<string, string> = {};
  for (const [, code] of section.matchAll(/```tsx\n([\s\S]*?)```/g)) {
    const name = /^\/\/ (\S+\.tsx?)\n/.exec(code)?.[1];
    if (name) files[name] = code;
  }
  return files;
}

/** What the quick start leaves to the app: its analytics client and its own screens and callbacks. */
const QUICK_START_STUBS = {
  "analytics.ts": "export const segment = { track(event: string, properties?: Record<string, unknown>): Promise<void> { void event; void properties; return Promise.resolve(); }, flush(): void {} };\n",
  "app-globals.d.ts": [
    "declare function Navigation(): null;",
    "declare function routeInApp(url: string): void;",
    "declare function toast(message: string): void;",
    "declare function log(value: unknown): void;",
    "declare function onSignIn(callback: (user: { id: string }) => void): void;",
    "declare function onSignOut(callback: () => void): void;",
    "",
  ].join("\n"),
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
  expect(JSON.parse(await AsyncStorage.getItem("interviews.participant-config.v2|https://api.example.com/api|pk_live_x")).config).toEqual(config);
  const again = createInterviewClient({ publicKey: "pk_live_x", baseUrl: "https://api.example.com/api", storage: AsyncStorage, fetch });
  await again.ready();
  expect(fetch).toHaveBeenCalledTimes(1); // the restart within the time-to-live made no request
});
`;

/** `tsc -p <config>` in the app: its error lines (the first line of each), sorted. */
function tsc(app: string, config: string): string[] {
  const run = spawnSync("npx", ["tsc", "-p", config], { cwd: app, env: npmEnv, encoding: "utf8" });
  const errors = `${run.stdout}${run.stderr}`.split("\n").filter((l) => /^\S.*\(\d+,\d+\): error TS\d+/.test(l)).sort();
  // A failure that prints no error line (a crash, a bad config) must not pass as "no errors".
  if (run.status !== 0) expect(errors.length, `tsc -p ${config} failed without error lines:\n${run.stdout}\n${run.stderr}`).toBeGreaterThan(0);
  return errors;
}

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
    mkdirSync(join(app, "src"));
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: `fresh-app-${name.replace(".", "")}`, version: "0.0.1", private: true, scripts: { test: "jest" }, ...t.template }));
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
    // The template's tsconfig, made strict with library checks on; the quick start and its stubs in src/.
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ extends: t.tsconfig, compilerOptions: { strict: true, skipLibCheck: false, noEmit: true }, include: ["src/**/*"] }, null, 2));
    for (const [file, code] of Object.entries({ ...quickStart(), ...QUICK_START_STUBS })) writeFileSync(join(app, "src", file), code);
    // The control: React Native alone, under the same settings.
    mkdirSync(join(app, "control"));
    writeFileSync(join(app, "control", "control.tsx"), 'import { View } from "react-native";\nexport const Screen = () => <View />;\n');
    writeFileSync(join(app, "tsconfig.control.json"), JSON.stringify({ extends: t.tsconfig, compilerOptions: { strict: true, skipLibCheck: false, noEmit: true }, include: ["control/**/*"] }, null, 2));
    // `init` installs the template; the team then adds the package and its peers with a plain npm install.
    await exec("npm", ["install", "--prefer-offline"], app);
    await exec("npm", ["install", "--prefer-offline", tarball, ...Object.entries(t.adds).map(([n, v]) => `${n}@${v}`)], app);
  }));
}, 660_000);

describe.each(Object.keys(APPS))("a fresh React Native %s app", (name) => {
  const t = APPS[name as keyof typeof APPS];

  it("installed the package beside the template's React with a plain npm install (no ERESOLVE), at the versions asked", () => {
    const installed = (pkg: string) => JSON.parse(readFileSync(join(apps[name], "node_modules", pkg, "package.json"), "utf8")).version;
    for (const [pkg, version] of Object.entries({ ...t.template.dependencies, ...t.adds })) expect(installed(pkg), pkg).toBe(version);
    expect(installed("@service/interviews-react-native")).toBeTruthy();
  });

  it.skipIf(t.jest === false)("runs a Jest test that imports the package as the README says, under React Native's preset with no transform settings for it", () => {
    // A generous timeout: the first test pays for Babel transforming React Native cold, on a busy 2-core machine.
    const run = spawnSync("npx", ["jest", "--ci", "--colors=false", "--testTimeout=60000"], { cwd: apps[name], env: npmEnv, encoding: "utf8" });
    expect(run.status, `the app's Jest run:\n${run.stderr}\n${run.stdout}`).toBe(0);
    expect(run.stderr).toMatch(/Tests:\s+2 passed, 2 total/);
  }, 300_000);

  it("compiles the README's quick start with the template's TypeScript, strict, with skipLibCheck false", () => {
    expect(Object.keys(quickStart()).sort()).toEqual(["App.tsx", "interviews.ts"]);
    const app = tsc(apps[name], "tsconfig.json");
    // React Native 0.87's own declarations fail skipLibCheck: false (with TypeScript 5.9 and 6 alike). Such errors
    // are told apart by a control app file that imports React Native alone: they must be exactly its errors, and
    // nothing may come from this package, its peers' use, or the quick start.
    const control = tsc(apps[name], "tsconfig.control.json");
    expect(control.every((e) => e.startsWith("node_modules/react-native/")), control.join("\n")).toBe(true);
    expect(app, "errors beyond React Native's own declarations").toEqual(control);
  }, 300_000);
});
