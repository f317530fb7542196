// Conversion counts every firing (it is events per user): ten firings count as ten.
import { broken } from "./wrap.ts";
import { computeMetric as real } from "../../../../metrics/src/index.ts";
export const computeMetric = broken("conversion", (def, data, options) => real({ ...def, type: "events_per_user" } as any, data, options));
