// `npm run test:conformance`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { layerConfig } from "./vitest.layer.ts";

// The longest files first (measured alone on 2026-12-07: cover 325 s, foreign 265, surfaces 208, selftest 159,
// variants-http 126 of the layer's 1255 test-s; cover had grown from 126 s with the violations planted since, and
// starting fourth it ran alone for the layer's last 95 s): on a fresh clone vitest orders files by size, and the
// longest started last, leaving one worker busy while the others idled.
// Both variants files started together, beside the surfaces, loaded the machine so that the self-test's reference
// server sent a retry 987 ms after a 400 ms delay (CI, 2026-12-04): they start after the self-test, never at once.
const LONGEST = ["cover", "foreign", "surfaces", "selftest", "variants-http", "variants-webhooks"];
const rank = (spec: TestSpecification) => {
  const i = LONGEST.findIndex((name) => spec.moduleId.endsWith(`/${name}.test.ts`));
  return i < 0 ? LONGEST.length : i;
};
class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

// Four files at once: the suite's runs mostly wait (retry windows, completions, the model's budget, their foreign
// servers). Alone, on 2026-12-07: three workers took 489 s, four 370 s with the machine 1.64 cores busy on average
// (read from /proc/stat), the covering phase first. Earlier, four beside a heavier layer had saturated the machine (a
// reference server sharing its worker with the suite sent a retry 1.07 s late); in scripts/test/all.sh it now runs
// beside the cluster layer's two minutes only, the soak having moved to a lane of its own. CONFORMANCE_WORKERS sets it.
export default layerConfig({ include: LAYERS.conformance.files, maxWorkers: Number(process.env.CONFORMANCE_WORKERS) || 4, sequencer: LongestFirst });
