/**
 * The demo's worker panel: one reference agent per protocol on 127.0.0.1, each with the auth its
 * protocol specifies. Secrets are random per run, held in memory only, and handed to the resolver
 * as per-agent credentials (keyed by agent id once the agents are registered).
 */
import { randomBytes } from "node:crypto";
import { AGENT_HANDLERS } from "../../protocols/index.js";
import { createReferenceAgent } from "../../agents/reference/server.js";
import type { PersonaName } from "../../agents/kit/answer-engine.js";
import type { AgentAuth } from "../../protocols/shared/agent-types.js";
import type { AgentCredentials } from "../../workflow/adapters/credentials.js";

export interface PanelMember {
  name: string;
  protocol: string;
  persona: PersonaName;
  /** The endpoint to register (the protocol's entry URL). */
  endpoint: string;
  /** What the resolver must present to this agent. */
  credentials: AgentCredentials;
  close(): Promise<void>;
}

interface Seat {
  protocol: string;
  persona: PersonaName;
  auth: (secret: string, jwksUrl: string) => { agent: AgentAuth; resolver: AgentCredentials };
}

const SEATS: readonly Seat[] = [
  { protocol: "cresolver", persona: "analyst", auth: () => ({ agent: {}, resolver: {} }) },
  {
    protocol: "factagora",
    persona: "skeptic",
    auth: (s) => ({ agent: { bearerToken: s }, resolver: { bearerToken: s } }),
  },
  {
    protocol: "roundtable",
    persona: "analyst",
    auth: (s) => ({ agent: { bearerToken: s }, resolver: { bearerToken: s } }),
  },
  { protocol: "agora", persona: "optimist", auth: (_s, jwks) => ({ agent: { jwksUrl: jwks }, resolver: {} }) },
  {
    protocol: "ai-olympics",
    persona: "contrarian",
    auth: (s) => ({ agent: { hmacSecret: s }, resolver: { hmacSecret: s } }),
  },
];

/** Starts the five agents. `jwksUrl`: where Agora agents fetch the resolver's public keys. */
export async function startPanel(
  jwksUrl: string,
  protocols: readonly string[] = SEATS.map((s) => s.protocol),
): Promise<PanelMember[]> {
  const members: PanelMember[] = [];
  try {
    for (const seat of SEATS.filter((s) => protocols.includes(s.protocol))) {
      const secret = randomBytes(24).toString("base64url");
      const { agent: auth, resolver } = seat.auth(secret, jwksUrl);
      const name = `${seat.protocol}-${seat.persona}`;
      const agent = createReferenceAgent({ protocol: seat.protocol, persona: seat.persona, name, auth });
      const base = await agent.start({ host: "127.0.0.1", port: 0 });
      members.push({
        name,
        protocol: seat.protocol,
        persona: seat.persona,
        endpoint: `${base.replace(/\/$/, "")}${AGENT_HANDLERS[seat.protocol]?.endpointPath ?? ""}`,
        credentials: resolver,
        close: () => agent.close(),
      });
    }
  } catch (error) {
    await Promise.all(members.map((m) => m.close()));
    throw error;
  }
  return members;
}
