/**
 * Test agents as pure functions of the request (path + JSON body → status, headers, body text), so the same agent
 * can stand behind the CRE HTTP capability mock and behind a real loopback HTTP server for the Node pipeline.
 * No SDK and no Node imports: both type-check programs use this file.
 */
import { buildRegistrationFile } from "../../workflow/registration/codec.js";

export interface AgentReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export type Agent = (path: string, body: unknown) => AgentReply;

const json = (value: unknown, status = 200): AgentReply => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(value),
});

/** The resolve reply of an honest test agent (unsigned). */
export function honestReply(determination: boolean, confidence: number, tag: string) {
  return {
    determination,
    confidence,
    evidence: `Agent ${tag}: the official statistics office published the figure on 2026-01-15; it ${determination ? "exceeds" : "does not exceed"} the threshold by a clear margin, confirmed by two independent reports.`,
    sources: [`https://stats.example.org/release/${tag}`, `https://news.example.com/${tag}/report`],
  };
}

/** A CRE-protocol agent that answers `determination` with some evidence and defends it when challenged. */
export function honestAgent(determination: boolean, confidence = 0.8, tag = "a"): Agent {
  return (path, body) => {
    if (path.endsWith("/a2a/resolve")) return json(honestReply(determination, confidence, tag));
    if (path.endsWith("/a2a/challenge")) {
      const challenges = (body as { challenges?: unknown[] } | null)?.challenges ?? [];
      return json({
        responses: challenges.map(
          (_, i) =>
            `Reply ${i + 1} from ${tag}: the release table and its revision notes support the answer; methodology unchanged since 2024.`,
        ),
      });
    }
    return json({ error: "not found" }, 404);
  };
}

/** An agent that fails in a given way on /a2a/resolve. */
export function brokenAgent(kind: "500" | "not-json" | "bad-schema" | "huge"): Agent {
  return (path) => {
    if (!path.endsWith("/a2a/resolve")) return json({ responses: [] });
    if (kind === "500") return json({ error: "boom" }, 500);
    if (kind === "not-json")
      return { status: 200, headers: { "content-type": "text/html" }, body: "<html>nope</html>" };
    if (kind === "bad-schema") return json({ determination: "yes", confidence: 2 });
    return json({
      determination: true,
      confidence: 0.9,
      evidence: "x".repeat(40_000),
      sources: ["https://big.example.org/"],
    });
  };
}

/** The registration tokenURI of an agent at `endpoint` (inline data: URI, protocol cresolver). */
export function registrationUri(name: string, endpoint: string): string {
  const file = buildRegistrationFile({ name, endpoint });
  const bytes = new TextEncoder().encode(JSON.stringify(file));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `data:application/json;base64,${btoa(binary)}`;
}

export interface Seat {
  address: `0x${string}`;
  agentId: bigint;
  stake: bigint;
}

/** A market in ResolutionRequested with its panel. */
export interface TestMarket {
  chainId: number;
  market: `0x${string}`;
  identityRegistry: `0x${string}`;
  marketId: bigint;
  question: string;
  deadline: bigint;
  status: number;
  seats: Seat[];
  /** tokenURI per seat (undefined: the registry reverts). */
  tokenURIs: (string | undefined)[];
  /** Per seat, the ERC-8004 agentWallet and owner the registry returns (absent: none set, ownerOf reverts). */
  signers?: { wallet?: `0x${string}`; owner?: `0x${string}` }[];
  /** The market's track-record cut-off as getMarket returns it; absent: no history (count 0). */
  cutoff?: { count: number; head: `0x${string}` };
  /** The market's MarketGovernance (answers `governance()`); absent: the call reverts. */
  governance?: `0x${string}`;
  /** Arbiters the governance's `isArbiterAllowed` says yes to (every other: no). */
  allowedArbiters?: `0x${string}`[];
}

export const MARKET_ADDRESS = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
export const IDENTITY_ADDRESS = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" as const;
export const RECEIVER_ADDRESS = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0" as const;

export function testMarket(endpoints: string[], overrides: Partial<TestMarket> = {}): TestMarket {
  return {
    chainId: 31337,
    market: MARKET_ADDRESS,
    identityRegistry: IDENTITY_ADDRESS,
    marketId: 7n,
    question: "Will the 2026 official inflation figure exceed 3%?",
    deadline: 1_767_225_600n,
    status: 2,
    seats: endpoints.map((_, i) => ({
      address: `0x${(0x1000 + i).toString(16).padStart(40, "0")}` as `0x${string}`,
      agentId: BigInt(i + 1),
      stake: 10n ** 15n,
    })),
    tokenURIs: endpoints.map((e, i) => registrationUri(`agent ${i + 1}`, e)),
    ...overrides,
  };
}
