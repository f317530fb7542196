// `npm run test:conformance`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { layerConfig } from "./vitest.layer.ts";

// The longest files first (measured in CI on 2026-12-04: 321, 292, 191, 185 and 152 s of the layer's 1499 test-s; the
// cover file's fixed cases now run only the units that judge them): on a fresh clone vitest orders files by size, and
// the longest started last, leaving one worker busy while the others idled.
const LONGEST = ["variants-webhooks", "variants-http", "surfaces", "selftest", "foreign", "cover"];
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
