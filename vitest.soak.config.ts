// `npm run test:soak`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

export default layerConfig({ include: LAYERS.soak.files, testTimeout: 60_000, hookTimeout: 120_000, maxWorkers: 1, fileParallelism: false });
