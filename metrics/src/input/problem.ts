/** A problem with one input value, without its place: the caller adds the file, line and column, or the field path. */
export class ValueProblem extends Error {}
