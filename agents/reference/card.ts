/**
 * The agent's A2A agent card: a JSON self-description at `/.well-known/agent.json` (the path the Chainlink CRE
 * workflow probes before asking a worker; workers without one are dropped there) and at
 * `/.well-known/agent-card.json` (the name newer A2A versions use). Fields follow the public A2A AgentCard
 * (https://a2a-protocol.org/latest/specification/): name, description, url, version, capabilities, default
 * modes and skills. The card describes; it is not auth: it is served without credentials, as A2A intends.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AgentInfo } from "../../protocols/shared/agent-types.js";

/** The A2A protocol version whose card layout we follow. */
export const A2A_CARD_PROTOCOL_VERSION = "0.3.0";
/** Version of the reference agent's behaviour, reported in the card. */
export const REFERENCE_AGENT_VERSION = "0.1.0";
export const AGENT_CARD_PATHS = ["/.well-known/agent.json", "/.well-known/agent-card.json"] as const;

export interface AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  version: string;
  capabilities: { streaming: boolean; pushNotifications: boolean; stateTransitionHistory: boolean };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: { id: string; name: string; description: string; tags: string[]; examples: string[] }[];
}

/** The card for an agent whose endpoint (as registered) is `url`. */
export function agentCard(info: AgentInfo, url: string): AgentCard {
  return {
    protocolVersion: A2A_CARD_PROTOCOL_VERSION,
    name: info.name,
    description: `cresolver reference worker (${info.persona}, ${info.mode}): answers yes/no prediction-market questions with a determination, a confidence, evidence and sources, and defends its answer against challenges. Wire protocol: ${info.protocol}.`,
    url,
    version: REFERENCE_AGENT_VERSION,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "resolve-market",
        name: "Resolve a market question",
        description:
          "Investigates a yes/no question about a real-world event and answers with a determination, a confidence in [0,1], evidence and sources.",
        tags: ["prediction-market", "resolution", "erc-8004", info.protocol],
        examples: ["Will bitcoin close above $200,000 on 31 December 2026?"],
      },
      {
        id: "defend-answer",
        name: "Answer challenges",
        description: "Replies to challenges of its own earlier answer for the same market, one reply per challenge.",
        tags: ["challenge", "debate", info.protocol],
        examples: ["Other workers reached the opposite conclusion. What evidence makes you confident?"],
      },
    ],
  };
}

/** The endpoint URL as the caller reached it: the configured public URL, else scheme://Host header + path. */
function endpointFor(request: FastifyRequest, endpointPath: string, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  return `${request.protocol}://${request.host}${endpointPath}`;
}

/**
 * Serves the card at the origin's well-known paths and, when the endpoint is not the base URL (e.g. /webhook),
 * also under the endpoint, so `{endpoint}/.well-known/agent.json` resolves as well.
 */
export function registerAgentCard(
  app: FastifyInstance,
  info: AgentInfo,
  endpointPath: string,
  publicUrl?: string,
): void {
  const prefixes = endpointPath === "" ? [""] : ["", endpointPath];
  for (const prefix of prefixes) {
    for (const path of AGENT_CARD_PATHS) {
      app.get(`${prefix}${path}`, async (request, reply) => {
        reply.header("cache-control", "public, max-age=300");
        return agentCard(info, endpointFor(request, endpointPath, publicUrl));
      });
    }
  }
}
