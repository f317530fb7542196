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

// Three files at once alone: the suite's runs mostly wait (retry windows, completions, the model's budget), so two
// workers kept the machine 28% busy (user+sys 172 s over 308 s on 2 cores). Three end about as soon as four (the three
// longest files set the time), and four beside another layer saturated the machine: a reference server sharing its
// worker with the suite sent a retry 1.07 s late, past the window implementers are held to. In scripts/test/all.sh it
// runs on three, at first beside the end of the cluster layer's soak (under half a core). CONFORMANCE_WORKERS sets it.
export default layerConfig({ include: LAYERS.conformance.files, maxWorkers: Number(process.env.CONFORMANCE_WORKERS) || 3, sequencer: LongestFirst });
