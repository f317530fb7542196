// `npm run test:conformance`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

// Three files at once alone: the suite's runs mostly wait (retry windows, completions, the model's budget), so two
// workers kept the machine 28% busy (user+sys 172 s over 308 s on 2 cores). Three end about as soon as four (the three
// longest files set the time), and four beside another layer saturated the machine: a reference server sharing its
// worker with the suite sent a retry 1.07 s late, past the window implementers are held to. In scripts/test/all.sh it
// runs on three, at first beside the end of the cluster layer's soak (under half a core). CONFORMANCE_WORKERS sets it.
export default layerConfig({ include: LAYERS.conformance.files, maxWorkers: Number(process.env.CONFORMANCE_WORKERS) || 3 });
