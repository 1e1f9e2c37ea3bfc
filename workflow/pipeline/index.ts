export { runResolution } from "./run.js";
export type { FailedWorker, ResolutionRunResult, RunOptions, StageTimings } from "./run.js";
export { describeProgress } from "./call-worker.js";
export type { AwaitedWorker, ProgressEvent, ProgressListener, StageFailure, WorkerCallStage } from "./call-worker.js";
export { PipelineError, RunAbortedError } from "./errors.js";
export type { StageName } from "./errors.js";
export { capWorkerShare, MAX_BUNDLE_BYTES, WORKER_SHARE_BYTES } from "./cap.js";
export type {
  PipelinePorts,
  ResolutionConfig,
  MarketReader,
  AgentDirectory,
  ReputationSource,
  TrackRecordSource,
} from "../ports.js";
