/**
 * The relay's side: gather a market's signed answers into one relayed-answers document (answer-document.ts) with the
 * pipeline's own read, discover and ask stages (the same requests, adapters and deadlines as a resolution) and its
 * signature check. Only answers whose signature verifies against the agent's wallet or owner go in: an unsigned
 * reply would be refused by every reader anyway. Seat order is kept; when the document would exceed `maxBytes` (a
 * DON's 100 KB response quota) the last seats' answers are left out until it fits, so the answers that remain are
 * still readable in one call.
 */
import type { ResolveReply } from "../../protocols/cresolver/wire.js";
import type { Hex } from "../core/types.js";
import { readStage } from "../pipeline/01-read.js";
import { discoverStage } from "../pipeline/02-discover.js";
import { askStage } from "../pipeline/03-ask.js";
import { checkSignatures } from "../pipeline/signatures.js";
import type { PipelinePorts, ResolutionConfig } from "../ports.js";
import { encodeRelayDocument, type RelayDocumentWire } from "./answer-document.js";

export interface GatheredAnswers {
  document: RelayDocumentWire;
  /** Its JSON text (what is served). */
  text: string;
  /** Seats with a verified answer that did not fit `maxBytes`. */
  dropped: number;
}

export async function gatherSignedAnswers(
  marketId: bigint,
  ports: Pick<PipelinePorts, "market" | "directory" | "fetcher" | "adapters" | "signatures">,
  options: { maxBytes: number; config?: ResolutionConfig },
): Promise<GatheredAnswers> {
  const market = await readStage(ports.market, marketId);
  const discovered = await discoverStage(market, ports, options.config);
  const records = await checkSignatures(market, await askStage(market, discovered, ports.adapters), ports.signatures);
  const signed: { agentId: bigint; reply: ResolveReply }[] = [];
  for (const r of records) {
    const a = r.answer;
    if (a === undefined || r.signatureCheck?.status !== "signed") continue;
    const signature: Hex = r.signatureCheck.signature;
    signed.push({
      agentId: r.seat.agentId,
      reply: {
        determination: a.determination,
        confidence: a.confidence,
        evidence: a.evidence,
        sources: a.sources,
        signature,
      },
    });
  }
  const at = { chainId: market.chainId, market: market.marketAddress, marketId: market.marketId };
  for (let kept = signed.length; ; kept--) {
    const document = encodeRelayDocument(at, signed.slice(0, kept));
    const text = JSON.stringify(document);
    if (new TextEncoder().encode(text).length <= options.maxBytes || kept === 0)
      return { document, text, dropped: signed.length - kept };
  }
}
