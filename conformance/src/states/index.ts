/**
 * `@service/api-conformance/states`: what a provider-states module (`--states FILE`) is written against. Its types
 * come from the contract; the two errors tell the run that something was refused or is not supported.
 */
export { AFTER_2_0_0, ALL_CAPABILITIES, CAPABILITIES } from "./capabilities.ts";
export { defineStates, StateRefused, StateUnsupported } from "./types.ts";
export type {
  Capability, CreatedItem, CreatedProject, CreateProjectInput, ExperimentReading, ExperimentsReading, FaultSettings, PlantChatInput, PlantedChat, PlantedInterview, PlantedStudy, PlantInterviewInput,
  PlantStudyInput, ProjectRef, ProviderStates, StatesEnv, StatesModule, StudyStatus,
} from "./types.ts";
