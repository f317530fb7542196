/** The success-metrics engine: the seed's four metrics and a treatment-vs-control comparison. */
export { computeMetric } from "./compute.ts";
export { compareVariants, type CompareOptions, type Comparison } from "./compare.ts";
export { MetricInputError } from "./validate.ts";
export type * from "./types.ts";
