/** How a check ends other than by running to the end: kept apart so every module can throw them without a cycle. */
import { describeCapability, type Capability } from "./states/capabilities.ts";

/** Ends a check early: the failure or reason is already recorded. */
export class Abort extends Error {}

/** Ends a check because what it needs is not there: its capability is NOT TESTED. */
export class NotTested extends Error {}

/** A provider-states capability the run lacks: what needs it is NOT TESTED, naming the capability. */
export class Lacking extends NotTested {
  constructor(readonly capability: Capability, readonly why: string) {
    super(`needs ${describeCapability(capability)}: ${why}`);
  }
}

/** Ends a check that does not apply to this run (e.g. metrics without --metrics-engine). */
export class NotApplicable extends Error {}

