/** Every unit of the covering phase, one file each, in the order they are listed in the report. */
import { burst } from "./burst.ts";
import { chats } from "./chats.ts";
import { clientHeaders } from "./client-headers.ts";
import { counts } from "./counts.ts";
import { decoders } from "./decoders.ts";
import { cursors } from "./cursors.ts";
import { experiments } from "./experiments.ts";
import { filteredWalks } from "./filtered-walks.ts";
import { launches } from "./launches.ts";
import { leftCursors } from "./left-cursors.ts";
import { lists } from "./lists.ts";
import { longValues } from "./long-values.ts";
import { messages } from "./messages.ts";
import { pages } from "./pages.ts";
import { receiverAnswers } from "./receiver-answers.ts";
import { recreation } from "./recreation.ts";
import { referenceIds } from "./reference-ids.ts";
import { releases } from "./releases.ts";
import { repeatedParams } from "./repeated-params.ts";
import { emptyValues } from "./empty-values.ts";
import { revalidation } from "./revalidation.ts";
import { tenants } from "./tenants.ts";
import { ties } from "./ties.ts";
import { uuidVersions } from "./uuid-versions.ts";
import type { Unit } from "./unit.ts";

export const UNITS: Unit[] = [receiverAnswers, recreation, burst, referenceIds, counts, messages, cursors, chats, ties, leftCursors, filteredWalks, lists, releases, tenants, experiments, launches, longValues, uuidVersions, clientHeaders, decoders, repeatedParams, emptyValues, revalidation, pages];

export type { Unit } from "./unit.ts";
