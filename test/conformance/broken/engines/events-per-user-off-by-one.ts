// Events per user counts one event too many per variant.
import { broken, mapValues } from "./wrap.ts";
export const computeMetric = broken("events_per_user", (_d, _x, _o, result) => mapValues(result, (v) => ({ ...v, numerator: v.numerator + 1, value: v.denominator ? (v.numerator + 1) / v.denominator : v.value })));
