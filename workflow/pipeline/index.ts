export { runResolution } from "./run.js";
export type { ResolutionRunResult, StageTimings } from "./run.js";
export { PipelineError } from "./errors.js";
export type { StageName } from "./errors.js";
export type { WriteOutcome } from "./10-write.js";
export type { PipelinePorts, ResolutionConfig, MarketReader, AgentDirectory, ReputationSource, TrackRecordSource, ResolutionWriter, WriteReceipt } from "../ports.js";
