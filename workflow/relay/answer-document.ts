/**
 * The relayed-answers document (docs/CRE.md "Signed-answer relay"), its one declaration: a whole panel's
 * agent-signed `cresolver` replies gathered by any relay (the daemon's `GET /answers/<marketId>` for one) so that a
 * resolver — a DON above all — reads every seat's answer in ONE HTTP call instead of one call per seat.
 *
 *   { "version": 1, "chainId": 31337, "market": "0x…", "marketId": "7",
 *     "answers": [ { "agentId": "1", "reply": { determination, confidence, evidence, sources, signature } }, … ] }
 *
 * `reply` is the agent's resolve reply exactly as it sent it (protocols/cresolver/wire.ts). Its signature is the
 * agent's EIP-712 `Answer` (workflow/core/answer-signature.ts) over the market, the seat's agent id, the answer, the
 * confidence and the `replyHash` of the reply without its signature, so a reader recomputes everything the signature
 * covers from the document and checks it against the agent's ERC-8004 wallet or owner. A relay can leave an answer
 * out (the seat did not answer), never forge or alter one. Pure: parsing and shape checks only.
 */
import { getAddress, isAddress, type Address } from "viem";
import { z } from "zod";
import { parseJsonWith } from "../util/parse-json.js";
import { resolveReplySchema, type ResolveReply } from "../../protocols/cresolver/wire.js";
import { CresolverError } from "../util/errors.js";

export const RELAY_DOCUMENT_VERSION = 1;
/** Most answers a document may carry (a market's largest panel). */
export const MAX_RELAYED_ANSWERS = 100;

const decimal = z
  .string()
  .regex(/^(0|[1-9]\d{0,77})$/, "must be a decimal integer string")
  .transform((s) => BigInt(s))
  .refine((v) => v < 2n ** 256n, "must fit uint256");

export const relayDocumentSchema = z
  .object({
    version: z.literal(RELAY_DOCUMENT_VERSION),
    chainId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    market: z
      .string()
      .refine((s) => isAddress(s, { strict: false }), "not an address")
      .transform((s) => getAddress(s)),
    marketId: decimal,
    answers: z
      .array(z.object({ agentId: decimal, reply: z.unknown() }).strict())
      .max(MAX_RELAYED_ANSWERS)
      .refine((list) => new Set(list.map((a) => a.agentId)).size === list.length, "an agent appears twice"),
  })
  .strict();

export type RelayDocument = z.output<typeof relayDocumentSchema>;

/** The document as sent (ids as decimal strings). */
export interface RelayDocumentWire {
  version: typeof RELAY_DOCUMENT_VERSION;
  chainId: number;
  market: Address;
  marketId: string;
  answers: { agentId: string; reply: ResolveReply }[];
}

export class RelayDocumentError extends CresolverError {}

/** Which market a document must be about. */
export interface RelayMarket {
  chainId: number;
  market: Address;
  marketId: bigint;
}

/** The document of `answers` (signed replies, one per agent) for `market`, agents in the order given. */
export function encodeRelayDocument(
  market: RelayMarket,
  answers: readonly { agentId: bigint; reply: ResolveReply }[],
): RelayDocumentWire {
  return {
    version: RELAY_DOCUMENT_VERSION,
    chainId: market.chainId,
    market: getAddress(market.market),
    marketId: market.marketId.toString(),
    answers: answers.map((a) => ({ agentId: a.agentId.toString(), reply: a.reply })),
  };
}

/** What the document says for one agent: its reply, why its entry is unusable, or nothing (not relayed). */
export type RelayedReply = { reply: ResolveReply } | { invalid: string } | undefined;

export interface ParsedRelayDocument {
  /** The entry of `agentId`, parsed with the protocol's own reply schema. */
  replyOf(agentId: bigint): RelayedReply;
}

/**
 * Parses `text` and checks it is about `expected`. Throws RelayDocumentError (one line) for a document that is not
 * one or is about another market; an entry whose reply does not parse only costs that seat its answer.
 */
export function parseRelayDocument(text: string, expected: RelayMarket): ParsedRelayDocument {
  const doc = parseJsonWith(relayDocumentSchema, text, (why) =>
    why.kind === "not-json"
      ? new RelayDocumentError("the relay's answers document is not JSON")
      : new RelayDocumentError(
          `the relay's answers document is malformed${why.path !== "" ? ` at ${why.path.slice(0, 60)}` : ""}: ${why.message.slice(0, 120)}`,
        ),
  );
  if (
    doc.chainId !== expected.chainId ||
    doc.market !== getAddress(expected.market) ||
    doc.marketId !== expected.marketId
  )
    throw new RelayDocumentError(
      `the relay's answers document is for market ${doc.marketId} of ${doc.market} on chain ${doc.chainId}, not this one`,
    );
  const byAgent = new Map(doc.answers.map((a) => [a.agentId, a.reply]));
  return {
    replyOf(agentId) {
      if (!byAgent.has(agentId)) return undefined;
      const reply = resolveReplySchema.safeParse(byAgent.get(agentId));
      if (!reply.success) return { invalid: "its reply is not a valid cresolver resolve reply" };
      return { reply: reply.data };
    },
  };
}
