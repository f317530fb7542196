// The Expo config plugin (app.plugin.js), applied as Expo applies it: resolved by @expo/config-plugins from the
// package by name, then its mods compiled in introspection (what `npx expo config --type introspect` shows and
// `npx expo prebuild` writes): the iOS microphone usage description and the two Android permissions.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
// Typed by what the test uses: the package's declarations need the untyped `xcode` module.
interface ExpoConfig { android?: { permissions?: string[] }; _internal: { modResults: any; pluginHistory: Record<string, unknown> } }
const { compileModsAsync, withPlugins } = require("@expo/config-plugins") as {
  compileModsAsync(config: unknown, options: object): Promise<ExpoConfig>;
  withPlugins(config: unknown, plugins: unknown[]): ExpoConfig;
};
const plugin = fileURLToPath(new URL("../app.plugin.js", import.meta.url));

async function prebuild(entry: string | [string, unknown], ios: Record<string, unknown> = {}) {
  const projectRoot = mkdtempSync(join(tmpdir(), "expo-app-"));
  const base = { name: "Sample", slug: "sample", ios: { infoPlist: ios }, android: { permissions: ["android.permission.CAMERA"] }, _internal: { projectRoot } };
  const config = await compileModsAsync(withPlugins(base, [entry]), { projectRoot, introspect: true, platforms: ["ios", "android"], assertMissingModProviders: false });
  const internal = config._internal;
  const manifestPermissions = (internal.modResults.android.manifest.manifest["uses-permission"] as Array<{ $: Record<string, string> }>).map((p) => p.$["android:name"]);
  return { infoPlist: internal.modResults.ios.infoPlist as Record<string, unknown>, permissions: config.android?.permissions ?? [], manifestPermissions, history: internal.pluginHistory };
}

describe("app.plugin.js (Expo)", () => {
  it("adds NSMicrophoneUsageDescription and the RECORD_AUDIO and MODIFY_AUDIO_SETTINGS permissions, keeping the app's own", async () => {
    const out = await prebuild(plugin);
    expect(out.infoPlist.NSMicrophoneUsageDescription).toBe("Allow $(PRODUCT_NAME) to use the microphone for the interviews you choose to start.");
    expect(out.permissions).toEqual(["android.permission.CAMERA", "android.permission.RECORD_AUDIO", "android.permission.MODIFY_AUDIO_SETTINGS"]);
    expect(out.manifestPermissions).toEqual(expect.arrayContaining(["android.permission.CAMERA", "android.permission.RECORD_AUDIO", "android.permission.MODIFY_AUDIO_SETTINGS"]));
    expect(Object.keys(out.history)).toContain("@service/interviews-react-native");
  });

  it("takes a microphonePermission text, keeps an app's existing description otherwise, and refuses an empty one", async () => {
    expect((await prebuild([plugin, { microphonePermission: "We record your answers." }])).infoPlist.NSMicrophoneUsageDescription).toBe("We record your answers.");
    expect((await prebuild(plugin, { NSMicrophoneUsageDescription: "Ours." })).infoPlist.NSMicrophoneUsageDescription).toBe("Ours.");
    await expect(prebuild([plugin, { microphonePermission: "" }])).rejects.toThrow("microphonePermission must be a non-empty string");
  });

  it("is CommonJS: plain require() in a bare Node process loads it (Expo loads plugins so), and engines.node is declared", () => {
    // A separate process without vitest's or tsx's loaders: exactly what `require()` does in Expo's CLI.
    const out = execFileSync(process.execPath, ["-e", `const p = require(${JSON.stringify(plugin)}); process.stdout.write(typeof p)`], { encoding: "utf8" });
    expect(out).toBe("function");
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(pkg.type ?? "commonjs").toBe("commonjs");
    expect(pkg.engines?.node).toMatch(/^>=\d+/);
  });

  it("runs once when listed twice", async () => {
    const projectRoot = mkdtempSync(join(tmpdir(), "expo-app-"));
    const config = withPlugins({ name: "S", slug: "s", _internal: { projectRoot } }, [plugin, plugin]);
    expect((config.android?.permissions ?? []).filter((p) => p === "android.permission.RECORD_AUDIO")).toHaveLength(1);
  });
});
