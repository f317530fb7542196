/** Every check, in the order they run. */
import type { Check } from "../check.ts";
import { authCheck } from "./auth.ts";
import { capacityCheck } from "./capacity.ts";
import { chatsCheck } from "./chats.ts";
import { coverCheck } from "./cover.ts";
import { deprecatedCheck } from "./deprecated.ts";
import { fieldsCheck } from "./fields.ts";
import { filtersCheck } from "./filters.ts";
import { isolationCheck } from "./isolation.ts";
import { metricsCheck } from "./metrics.ts";
import { modelCheck } from "./model.ts";
import { paginationCheck } from "./pagination.ts";
import { parametersCheck } from "./parameters.ts";
import { participantCheck } from "./participant.ts";
import { retriesCheck } from "./retries.ts";
import { schemaCheck } from "./schema.ts";
import { truncationCheck } from "./truncation.ts";
import { webhooksCheck } from "./webhooks.ts";
import { windowsCheck } from "./windows.ts";

export const checks: Check[] = [
  schemaCheck, authCheck, paginationCheck, isolationCheck, filtersCheck, chatsCheck, fieldsCheck, truncationCheck, capacityCheck,
  windowsCheck, webhooksCheck, retriesCheck, coverCheck, modelCheck, parametersCheck, deprecatedCheck, participantCheck, metricsCheck,
];
