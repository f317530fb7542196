// Retention ignores its threshold: one event in the window counts (a threshold of 1).
import { broken } from "./wrap.ts";
import { computeMetric as real } from "../../../../metrics/src/index.ts";
export const computeMetric = broken("retention", (def, data, options) => real({ ...def, threshold: 1 } as any, data, options));
