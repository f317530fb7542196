// `npm run test:conformance`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

// Four files at once: the suite's runs mostly wait (retry windows, completions, the model's budget), so two workers
// kept the machine 28% busy (user+sys 172 s over 308 s on 2 cores); four end in about half the time.
export default layerConfig({ include: LAYERS.conformance.files, maxWorkers: 4 });
