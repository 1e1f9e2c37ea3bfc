/**
 * A relay of agent-signed answers for the CRE tests (workflow/relay/): test agents with real secp256k1 keys sign
 * their replies as the reference agent does, the relay's document is served by a test "agent" (a pure function of
 * the request, so it stands behind the CRE HTTP mock and a real loopback server alike). No SDK and no Node imports:
 * both type-check programs use this file.
 */
import { keccak256, stringToHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ResolveReply } from "../../protocols/cresolver/wire.js";
import { answerFieldsOf, replyHash, signAnswer } from "../../workflow/core/answer-signature.js";
import { encodeRelayDocument, type RelayDocumentWire } from "../../workflow/relay/answer-document.js";
import { type Agent, honestReply, type TestMarket } from "./agents.js";

export const RELAY_HOST = "relay.example";
export const RELAY_URL = `https://${RELAY_HOST}/answers/{marketId}?market={market}&chain={chainId}`;

/** Seat `i`'s (0-based) signing key: deterministic, so every run signs the same bytes. */
export function agentKey(i: number): Hex {
  return keccak256(stringToHex(`cresolver relay test agent ${i}`));
}

export const agentWallet = (i: number) => privateKeyToAccount(agentKey(i)).address;

/** `market` with every seat's agentWallet set to its test key's address. */
export function withWallets(market: TestMarket): TestMarket {
  return { ...market, signers: market.seats.map((_, i) => ({ wallet: agentWallet(i) })) };
}

/** Seat `i`'s honest reply, signed with `key` (default: its own) as the reference agent signs it. */
export async function signedReply(
  market: TestMarket,
  i: number,
  determination: boolean,
  confidence: number,
  key: Hex = agentKey(i),
): Promise<ResolveReply> {
  const reply = honestReply(determination, confidence, `r${i}`);
  const seat = market.seats[i];
  if (seat === undefined) throw new Error(`no seat ${i}`);
  const fields = answerFieldsOf(
    { chainId: market.chainId, market: market.market, marketId: market.marketId, agentId: seat.agentId },
    reply,
    replyHash(reply),
  );
  return { ...reply, signature: await signAnswer(privateKeyToAccount(key), fields) };
}

/** The relay document of the whole panel: `answers[i]` is seat i's (undefined: the relay has none). */
export async function relayDocument(
  market: TestMarket,
  answers: readonly ({ yes: boolean; confidence: number } | undefined)[],
): Promise<RelayDocumentWire> {
  const entries: { agentId: bigint; reply: ResolveReply }[] = [];
  for (const [i, a] of answers.entries()) {
    const seat = market.seats[i];
    if (a === undefined || seat === undefined) continue;
    entries.push({ agentId: seat.agentId, reply: await signedReply(market, i, a.yes, a.confidence) });
  }
  return encodeRelayDocument({ chainId: market.chainId, market: market.market, marketId: market.marketId }, entries);
}

/** The relay: GET → the document (JSON), whatever the path. `onRequest` sees each request's path. */
export function relayServer(document: unknown, onRequest?: (path: string) => void): Agent {
  return (path) => {
    onRequest?.(path);
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(document) };
  };
}
