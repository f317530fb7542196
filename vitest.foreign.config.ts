// `npm run test:foreign`: its files, what it proves and what it needs are in test/layers.ts (and the README's table).
import { LAYERS } from "./test/layers.ts";
import { layerConfig } from "./vitest.layer.ts";

export default layerConfig({ include: LAYERS.foreign.files });
