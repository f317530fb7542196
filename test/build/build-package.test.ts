// `npm run build -w <package>` skips a build that would change nothing, and builds again when anything it was built
// from changes: a source's content, a new file the tsconfig takes in, or the dist/ itself. Run on a copy of the
// receiver package in a temporary root (its own scripts/, tsconfig and node_modules/.cache), never on the checkout.
import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "../..");
const root = mkdtempSync(join(tmpdir(), "build-package-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const f of ["scripts/build-package.ts", "tsconfig.json", "package-lock.json"]) cpSync(join(repo, f), join(root, f));
writeFileSync(join(root, "package.json"), JSON.stringify({ private: true, type: "module" }));
mkdirSync(join(root, "generated"));
for (const f of readdirSync(join(repo, "generated")).filter((f) => f.endsWith(".d.ts"))) cpSync(join(repo, "generated", f), join(root, "generated", f));
cpSync(join(repo, "receiver"), join(root, "receiver"), { recursive: true, filter: (src) => !/\/receiver\/(dist|node_modules)$/.test(src) });
// What is checked here is when a build runs, not what it compiles: the copy skips the library files' check (a third of
// the time of each of its seven builds).
const tsconfig = join(root, "receiver/tsconfig.build.json");
writeFileSync(tsconfig, readFileSync(tsconfig, "utf8").replace(/"skipLibCheck": false/, '"skipLibCheck": true'));
// The packages the build needs, each linked: the cache the check writes stays in this root's node_modules/.
mkdirSync(join(root, "node_modules"));
for (const name of readdirSync(join(repo, "node_modules")).filter((n) => !n.startsWith("."))) symlinkSync(join(repo, "node_modules", name), join(root, "node_modules", name));

const build = (...extra: string[]) =>
  execFileSync(process.execPath, ["--import", "tsx", join(root, "scripts/build-package.ts"), ...extra, join(root, "receiver")], { cwd: join(root, "receiver"), encoding: "utf8" });
const BUILT = "built receiver/dist/";
const SKIPPED = "receiver/dist/ is up to date";

describe("build-package's up-to-date check", () => {
  it("builds, then skips while nothing changed, and builds again after each kind of change", () => {
    expect(build()).toContain(BUILT);
    expect(readdirSync(join(root, "receiver/dist"))).toContain("index.js");
    expect(readdirSync(join(root, "node_modules/.cache/build-package"))).toEqual(["receiver.json"]);
    expect(build()).toContain(SKIPPED);

    appendFileSync(join(root, "receiver/src/reasons.ts"), "\n// changed\n");
    expect(build()).toContain(BUILT);
    expect(build()).toContain(SKIPPED);

    // A file no other file imports, taken in by the tsconfig's include: its output is part of dist/.
    writeFileSync(join(root, "receiver/src/extra.ts"), "export const extra = 1;\n");
    expect(build()).toContain(BUILT);
    expect(readdirSync(join(root, "receiver/dist"))).toContain("extra.js");

    appendFileSync(join(root, "receiver/dist/index.js"), "\n// edited by hand\n");
    expect(build()).toContain(BUILT);
    expect(build()).toContain(SKIPPED);
    expect(build("--force")).toContain(BUILT);

    writeFileSync(join(root, "node_modules/.cache/build-package/receiver.json"), "{");
    expect(build()).toContain(BUILT);
    expect(build()).toContain(SKIPPED);
  }, 120_000);
});
