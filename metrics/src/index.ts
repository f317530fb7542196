/** The success-metrics engine: the seed's four metrics and a treatment-vs-control comparison. */
export { computeMetric, computeMetricFromRows, MemoryMetric } from "./compute.ts";
export { compareVariants, type CompareOptions, type Comparison } from "./compare.ts";
export { holm, readOut, sampleRatioCheck, SRM_THRESHOLD, type ArmComparison, type ReadOut, type ReadOutOptions, type SampleRatioCheck } from "./arms.ts";
export { readFiles, type ReadOptions } from "./input/read.ts";
export type { EventRow, ExposureRow, RowSource } from "./input/rows.ts";
export { MetricInputError } from "./validate.ts";
export type * from "./types.ts";
