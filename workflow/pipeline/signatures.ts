/**
 * After ask: every answer that came with a reply hash gets a SignatureCheck (docs/RECORDS.md §2). A signature that
 * verifies against the agent's ERC-8004 agentWallet or owner makes the seat `signed`; anything else — no
 * signature, a malformed one, one that does not verify, a verifier that failed — makes it `attested`, with a
 * one-line reason when a signature came. Never throws: a bad signature costs the agent its `signed` mark, not the run.
 */
import { answerFieldsOf, isSignatureHex, signatureShapeProblem } from "../core/answer-signature.js";
import { sanitizeString } from "../core/text.js";
import type { Hex, MarketSnapshot, SignatureCheck, WorkerRecord, WorkerReport } from "../core/types.js";
import type { AnswerSignatureVerifier } from "../ports.js";

const ZERO_HASH: Hex = `0x${"0".repeat(64)}`;

async function checkOne(
  market: MarketSnapshot,
  record: WorkerRecord,
  verifier: AnswerSignatureVerifier | undefined,
): Promise<SignatureCheck | undefined> {
  const answer = record.answer;
  if (answer?.replyHash === undefined) return undefined;
  const attested = (reason?: string, signature: Hex = "0x"): SignatureCheck => ({
    status: "attested",
    replyHash: answer.replyHash ?? ZERO_HASH,
    signature,
    ...(reason !== undefined ? { reason: sanitizeString(reason, 300) } : {}),
  });
  if (answer.signature === undefined) return attested();
  const signature = answer.signature;
  if (!isSignatureHex(signature)) return attested(signatureShapeProblem(signature));
  if (verifier === undefined) return attested("no signature verifier configured", signature);
  const fields = answerFieldsOf(
    { chainId: market.chainId, market: market.marketAddress, marketId: market.marketId, agentId: record.seat.agentId },
    answer,
    answer.replyHash,
  );
  try {
    const signer = await verifier.verify(fields, signature);
    if (signer === undefined)
      return attested("signature does not verify against the agent's agentWallet or owner", signature);
    return { status: "signed", replyHash: answer.replyHash, signature, signer };
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return attested(`signature could not be checked: ${why}`, signature);
  }
}

/** The records with a `signatureCheck` on each answer that carried a reply hash (seat order kept). */
export async function checkSignatures(
  market: MarketSnapshot,
  records: readonly WorkerRecord[],
  verifier: AnswerSignatureVerifier | undefined,
): Promise<WorkerRecord[]> {
  return Promise.all(
    records.map(async (record) => {
      if (record.answer === undefined) return record;
      const check = await checkOne(market, record, verifier);
      return check === undefined ? record : { ...record, signatureCheck: check };
    }),
  );
}

/** The report fields of a seat's check: the reply hash, and the signature only when it verified. */
export function signedReportFields(record: WorkerRecord): Pick<WorkerReport, "replyHash" | "signature"> {
  const check = record.signatureCheck;
  if (check === undefined) return {};
  return check.status === "signed"
    ? { replyHash: check.replyHash, signature: check.signature }
    : { replyHash: check.replyHash };
}
