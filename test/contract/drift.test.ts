// The generated folder is committed; it must be exactly what `npm run generate` makes from spec/.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../scripts/generate.ts";

const committed = new URL("../../generated/", import.meta.url).pathname;
// generated/ is also the contract package's folder: its package.json, README and CHANGELOG are written by hand,
// and spec/ is the TypeSpec copy its build makes for the tarball (git-ignored).
const PACKAGE_FILES = new Set(["package.json", "README.md", "CHANGELOG.md", "spec", "node_modules"]);
const generatedNames = () => readdirSync(committed).filter((n) => !PACKAGE_FILES.has(n)).sort();
const fresh = mkdtempSync(join(tmpdir(), "generated-"));
afterAll(() => rmSync(fresh, { recursive: true, force: true }));

describe("generated/ is up to date", () => {
  it("regenerates byte-identically", async () => {
    await generate(fresh);
    const names = readdirSync(fresh).sort();
    expect(generatedNames()).toEqual(names);
    for (const name of names) {
      const same = readFileSync(join(fresh, name)).equals(readFileSync(join(committed, name)));
      expect(same, `generated/${name} differs from a fresh \`npm run generate\`; run it and commit the result`).toBe(true);
    }
  }, 120_000);

  it("every generated file says it is generated", () => {
    for (const name of generatedNames()) {
      expect(readFileSync(join(committed, name), "utf8").slice(0, 300)).toContain("Do not edit by hand");
    }
  });
});
