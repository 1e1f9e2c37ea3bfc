/**
 * How `cresolver daemon` stops: on SIGTERM, or on Ctrl-C (main.ts aborts the run's signal on SIGINT), it stops
 * gracefully and then says, in the Ctrl-C report's words (cli/shared/tx-journal.ts), what this run sent and what
 * its store still holds: proposals sent but not confirmed (with their hash), and transactions not sent yet.
 */
import type { JobRow } from "../../daemon/store-rows.js";
import type { TxEntry, TxJournal } from "../shared/tx-journal.js";

export type StopSignal = "SIGINT" | "SIGTERM";

/** What the next start does with what is left (printed when anything is). */
export const RESTART_HINT =
  "the next start with the same --db waits for the sent proposals instead of sending them again, and sends the rest";

/** Resolves on the first SIGTERM, or Ctrl-C: the abort of `signal` when given (main.ts), else SIGINT itself. */
export function untilStopSignal(signal: AbortSignal | undefined): Promise<StopSignal> {
  return new Promise<StopSignal>((resolve) => {
    const done = (which: StopSignal) => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
      signal?.removeEventListener("abort", onInt);
      resolve(which);
    };
    const onInt = () => done("SIGINT");
    const onTerm = () => done("SIGTERM");
    process.once("SIGTERM", onTerm);
    if (signal === undefined) process.once("SIGINT", onInt);
    else if (signal.aborted) onInt();
    else signal.addEventListener("abort", onInt, { once: true });
  });
}

/** The transactions the daemon's unfinished jobs still wait on or have still to send. */
export function pendingTransactions(jobs: readonly JobRow[]): TxEntry[] {
  const out: TxEntry[] = [];
  for (const job of jobs) {
    const market = `market ${job.marketId}`;
    switch (job.state) {
      case "requested":
      case "running":
        out.push({ label: `ResolutionMarket.proposeResolution (${market}, not resolved yet)`, stage: "sending" });
        break;
      case "proposing":
        out.push(
          job.txHash === null
            ? { label: `ResolutionMarket.proposeResolution (${market})`, stage: "sending" }
            : { label: `ResolutionMarket.proposeResolution (${market})`, stage: "sent", hash: job.txHash },
        );
        break;
      case "proposed":
        out.push({ label: `ResolutionMarket.finalize (${market}, after the dispute window)`, stage: "sending" });
        break;
      case "finalized":
        if (job.feedback === "pending")
          out.push({ label: `MarketReputation.publishFeedback (${market})`, stage: "sending" });
        break;
      default:
        // Disputed: the arbiter rules, nothing of ours to send; the other states are terminal.
        break;
    }
  }
  return out;
}

/** The report printed (stderr) after the graceful stop, and its transactions for --json (bigints become strings there). */
export function stopReport(
  journal: TxJournal,
  signal: StopSignal,
  unfinished: readonly JobRow[],
): { text: string; transactions: TxEntry[] } {
  const pending = pendingTransactions(unfinished);
  return {
    text: journal.stopReport(`daemon stopped (${signal})`, pending, RESTART_HINT),
    transactions: journal.merged(pending),
  };
}
