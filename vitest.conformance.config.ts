// `npm run test:conformance`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

// The longest files first, as CI measured them on 2026-12-07 (surfaces 296 s, variants-http 286, cover 461 before its
// retry-schedule cases moved to the foreign layer, selftest 200, variants-webhooks 180, foreign 170): a long file
// started last left one worker busy while the others idled. The self-test starts at once, the variants files after it:
// both variants files started together beside the surfaces loaded the machine so that the self-test's reference server
// sent a retry 987 ms after a 400 ms delay (CI, 2026-12-04).
//
// Three files at once: the suite's runs mostly wait (retry windows, completions, the model's budget), so two workers
// kept the machine 28% busy (user+sys 172 s over 308 s on 2 cores). Three end about as soon as four (the three longest
// files set the time), and four beside another layer saturated the machine: a reference server sharing its worker with
// the suite sent a retry 1.07 s late, past the window implementers are held to. CONFORMANCE_WORKERS sets it.
export default layerConfig({
  include: LAYERS.conformance.files,
  maxWorkers: Number(process.env.CONFORMANCE_WORKERS) || 3,
  first: ["surfaces", "selftest", "cover", "foreign", "variants-http", "variants-webhooks"],
});
