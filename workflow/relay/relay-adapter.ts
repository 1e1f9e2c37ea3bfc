/**
 * Asks through a relay: the `cresolver` adapter with its ask served from the relayed-answers document
 * (answer-document.ts) — fetched ONCE for the whole panel before the run (fetchRelayDocument) — and every other call
 * (challenge, review) sent to the agent itself by the direct adapter. Each seat's reply is accepted only with the
 * agent's own signature: the reply hash is recomputed from the document, the signature checked by the pipeline's
 * AnswerSignatureVerifier against the agent's ERC-8004 wallet or owner. A seat the document leaves out, or an
 * unsigned, malformed or forged reply, makes the seat a failed one with the reason; nothing else changes in the run. The same adapter runs on a DON (cre/resolution/) and in Node (daemon, `cresolver
 * resolve`), so both read the same answers from the same document.
 */
import { answerFieldsOf, isSignatureHex, replyHash } from "../core/answer-signature.js";
import type { CallResult, WorkerAnswer, WorkerFailure, WorkerProtocolAdapter } from "../core/types.js";
import type { SafeHttpClient } from "../http/types.js";
import type { AnswerSignatureVerifier } from "../ports.js";
import { parseRelayDocument, type ParsedRelayDocument, type RelayMarket } from "./answer-document.js";

export interface RelayAdapterConfig {
  /** The agent-facing adapter (protocol `cresolver`): challenges and reviews still go to the agent. */
  direct: WorkerProtocolAdapter;
  /** The relay's document, fetched and parsed once for the run (fetchRelayDocument). */
  document: ParsedRelayDocument;
  market: RelayMarket;
  /** Checks each reply's signature; without one no relayed answer is accepted. */
  verifier: AnswerSignatureVerifier | undefined;
}

/** The document URL: `{chainId}`, `{market}` (lower-case) and `{marketId}` filled into `template`. */
export function relayUrl(template: string, market: RelayMarket): string {
  return template
    .replaceAll("{chainId}", String(market.chainId))
    .replaceAll("{market}", market.market.toLowerCase())
    .replaceAll("{marketId}", market.marketId.toString());
}

/**
 * The relay's document for `market` in one HTTP call. Throws (HttpError, RelayDocumentError) when it cannot be
 * fetched or is not a document about this market: the caller stops the run rather than turn a relay outage into a
 * panel of non-responders (and a bonded Invalid). A well-formed document that leaves seats out is the relay's right.
 */
export async function fetchRelayDocument(
  http: SafeHttpClient,
  url: string,
  market: RelayMarket,
  options: { timeoutMs: number; maxBytes: number },
): Promise<ParsedRelayDocument> {
  return parseRelayDocument(await http.getText(url, options), market);
}

const failed = (failure: WorkerFailure): CallResult<never> => ({ ok: false, failure, latencyMs: 0, attempts: 1 });

export function createRelayAdapter(config: RelayAdapterConfig): WorkerProtocolAdapter {
  const doc = config.document;
  return {
    protocol: config.direct.protocol,
    ...(config.direct.deadlines !== undefined ? { deadlines: config.direct.deadlines } : {}),
    challenge: (endpoint, seat, request) => config.direct.challenge(endpoint, seat, request),
    ...(config.direct.review !== undefined ? { review: config.direct.review } : {}),

    async ask(_endpoint, seat, request): Promise<CallResult<WorkerAnswer>> {
      const entry = doc.replyOf(seat.agentId);
      if (entry === undefined)
        return failed({ kind: "network", message: `relay: no answer from agent ${seat.agentId} in its document` });
      if ("invalid" in entry)
        return failed({ kind: "invalid-response", message: `relay: agent ${seat.agentId}: ${entry.invalid}` });
      const { signature, ...reply } = entry.reply;
      // An unsigned reply in a relay's document proves nothing: anyone could have written it.
      if (!isSignatureHex(signature))
        return failed({ kind: "invalid-response", message: `relay: agent ${seat.agentId}'s reply is not signed` });
      const hash = replyHash(reply);
      const fields = answerFieldsOf(
        {
          chainId: request.chainId ?? config.market.chainId,
          market: config.market.market,
          marketId: request.marketId,
          agentId: seat.agentId,
        },
        reply,
        hash,
      );
      let signer: string | undefined;
      try {
        signer = await config.verifier?.verify(fields, signature);
      } catch (error) {
        const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
        return failed({
          kind: "network",
          message: `relay: agent ${seat.agentId}'s signature could not be checked: ${why}`,
        });
      }
      if (signer === undefined)
        return failed({
          kind: "invalid-response",
          message: `relay: agent ${seat.agentId}'s reply is not signed by its agentWallet or owner (forged or altered)`,
        });
      return {
        ok: true,
        value: { ...reply, replyHash: hash, signature },
        latencyMs: 0,
        attempts: 1,
      };
    },
  };
}
