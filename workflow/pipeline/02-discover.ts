/**
 * Stage 2 — discover: for every seat, agentId → tokenURI (AgentDirectory) → registration file
 * (decodeAgentUri with the safe fetcher) → endpoint (pickWorkerEndpoint, restricted to the protocols
 * we have adapters for). All seats concurrently. A seat whose registration is missing, malformed or
 * unusable gets a `discoveryFailure` and is a non-responder. Only an unreachable AgentDirectory
 * (infrastructure, not the worker) throws, as a PipelineError.
 */
import type { DiscoveredWorkerRecord, MarketSnapshot, WorkerFailure, WorkerSeat } from "../core/types.js";
import { isHttpError } from "../http/errors.js";
import type { PipelinePorts, ResolutionConfig } from "../ports.js";
import {
  decodeAgentUri,
  isRegistrationError,
  pickWorkerEndpoint,
  type DecodeAgentUriOptions,
} from "../registration/index.js";
import { errorName, PipelineError } from "./errors.js";
import { findCause } from "../util/cause.js";

export async function discoverStage(
  market: MarketSnapshot,
  ports: Pick<PipelinePorts, "directory" | "fetcher" | "adapters">,
  config: ResolutionConfig = {},
): Promise<DiscoveredWorkerRecord[]> {
  const options: DecodeAgentUriOptions = { fetcher: ports.fetcher };
  if (config.ipfsGateway !== undefined) options.ipfsGateway = config.ipfsGateway;
  if (config.registrationMaxBytes !== undefined) options.maxBytes = config.registrationMaxBytes;
  if (config.registrationTimeoutMs !== undefined) options.timeoutMs = config.registrationTimeoutMs;
  return Promise.all(market.workers.map((seat) => discoverOne(seat, ports, options)));
}

async function discoverOne(
  seat: WorkerSeat,
  ports: Pick<PipelinePorts, "directory" | "adapters">,
  options: DecodeAgentUriOptions,
): Promise<DiscoveredWorkerRecord> {
  let uri: string | undefined;
  try {
    uri = await ports.directory.agentURI(seat.agentId);
  } catch (error) {
    // The directory could not be asked at all (RPC down): not the worker's fault, stop the run.
    throw new PipelineError("discover", `tokenURI(${seat.agentId}) could not be read (${errorName(error)})`, error);
  }
  if (uri === undefined) {
    return {
      seat,
      discoveryFailure: {
        kind: "registration",
        message: `agent ${seat.agentId} has no tokenURI in the identity registry`,
      },
    };
  }
  try {
    const file = await decodeAgentUri(uri, options);
    const endpoint = pickWorkerEndpoint(file, ports.adapters.protocols);
    return { seat, endpoint };
  } catch (error) {
    return { seat, discoveryFailure: discoveryFailure(error) };
  }
}

/**
 * Registration problems are "registration" failures, except a refused destination (the file or
 * its gateway pointed at an internal address), which keeps its own kind so it stands out.
 */
export function discoveryFailure(error: unknown): WorkerFailure {
  const refused = findCause(error, (e) => isHttpError(e) && e.kind === "destination-refused");
  if (isHttpError(refused)) return { kind: "destination-refused", message: `registration file: ${refused.message}` };
  if (isRegistrationError(error)) return { kind: "registration", message: `${error.code}: ${error.message}` };
  return { kind: "registration", message: `registration could not be loaded (${errorName(error)})` };
}
