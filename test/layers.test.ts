// Every test file runs in exactly one layer: `npm test`'s, or one named in test/layers.ts. A file no layer runs, or
// one two layers run, fails here; so does a layer whose globs match nothing.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { LAYERS, NAMED } from "./layers.ts";
import { root } from "./support/processes.ts";

// The Jest tests of the React Native library run in `npm test` too (npm run test:native), not through vitest.
const tests = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.test.ts", "*.test.tsx"], { cwd: root, encoding: "utf8" }).split("\n").filter((f) => f && !f.includes("node_modules/") && !f.startsWith("mobile/test-native/"));

/** A layer's globs as vitest reads them (`**` any folders, `*` within one name). */
const regex = (glob: string) => new RegExp(`^${glob.split("**/").map((part) => part.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")).join("(?:.*/)?")}$`);
const matching = (globs: string[]) => new Set(tests.filter((f) => globs.some((g) => regex(g).test(f))));

describe("test layers", () => {
  it("runs every test file in exactly one layer", () => {
    const named = Object.entries(LAYERS).map(([name, layer]) => [name, matching(layer.files)] as const);
    const fast = matching(["**/test/**/*.test.ts", "**/test/**/*.test.tsx"]);
    for (const f of matching([...NAMED, "server/test/cluster/**"])) fast.delete(f);
    const homes = (f: string) => [...(fast.has(f) ? ["npm test"] : []), ...named.filter(([, files]) => files.has(f)).map(([n]) => n)];
    expect(tests.filter((f) => homes(f).length !== 1).map((f) => `${f}: ${homes(f).join(", ") || "no layer"}`)).toEqual([]);
    for (const [name, files] of named) expect(files.size, name).toBeGreaterThan(0);
  });
});
