// A correct implementation that chose otherwise where the seed leaves the choice open: a copy of ../shared/foreign with
// every change of foreign/allowed.ts (an interview list that needs study_id, lists newest first, error bodies nested
// under `error`, 400s where the seed allows a 400, a 404 for DELETE with no webhook, the link's other form, retries a
// little late, ...), run with the defaults at its own timings as foreign-default.test.ts runs the server as it is. It
// must pass the same way: a verdict that fails it judges by our habits, not by the seed.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ALLOWED, plantAll } from "./foreign/allowed.ts";
import { expectDefaultRunPasses } from "./foreign/default-run.ts";

const dir = mkdtempSync(join(tmpdir(), "foreign-allowed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("quotes the seed's own words that leave each choice open", () => {
  const seed = readFileSync(new URL("../../../shared/seed/service-spec.md", import.meta.url), "utf8");
  for (const a of ALLOWED) expect(seed, a.name).toContain(a.leaves);
});

it("passes a copy making every allowed choice at once, with the default flags at its own timings", async () => {
  await expectDefaultRunPasses(plantAll(ALLOWED, dir));
}, 1_200_000);
