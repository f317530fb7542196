// Each violation of test/conformance/foreign/violations.ts (the kinds an outside check found random sequences missing,
// and those hidden sets of our own found no fixed input reaching) planted in a copy of ../shared/foreign, an
// implementation written from the seed alone, fails the named rule of the check that must catch it (the covering phase
// unless it names another) on every run, whatever the seed. A violation of a covering rule runs the units that judge
// that rule, not all of them: each unit runs alone as it does beside the others (in a project of its own). A violation
// of a rule no unit owns runs the whole phase. The violations judged on a copy's retry schedule, and the whole phase
// on the unchanged copy, are in cover-schedules.test.ts (the foreign layer: they mostly wait).
import { describe, it } from "vitest";
import { VIOLATIONS } from "./foreign/violations.ts";
import { catchesViolation, TIMINGS } from "./cover-run.ts";

describe("the covering phase", () => {
  // Each case starts a copy of its own and mostly waits on it, so they run side by side (vitest's maxConcurrency).
  describe.concurrent("catches every planted violation on every run", () => {
    for (const v of VIOLATIONS.filter((v) => !TIMINGS[v.rule])) {
      it(`${v.name} (${v.rule})`, ({ signal }) => catchesViolation(v, signal), 180_000);
    }
  });
});
