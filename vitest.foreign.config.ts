// `npm run test:foreign`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

// The two nine-minute default runs from the start, each in a worker of its own; the third worker takes the covering
// phase's retry-schedule cases, then the proxy's file (test/layers.ts says why).
export default layerConfig({ include: LAYERS.foreign.files, maxWorkers: 3, first: ["foreign-default", "foreign-allowed", "cover-schedules", "proxy-foreign"] });
