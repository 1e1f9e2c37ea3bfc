/**
 * The descriptions of the commands whose help runs past one line, keyed "<file> <command>" (file in
 * cli/commands/). Kept together so the help reads as one text and each command definition stays its flags.
 */
import { Command } from "commander";
import { marketIdArgument } from "../shared/options.js";

export const HELP_TEXT = {
  "agent register":
    "Register an ERC-8004 agent. Builds its registration-v1 file from the flags and stores it on-chain as a data: URI, or registers --uri instead. Prints the agentId.",
  "agent agent":
    "ERC-8004 worker agents: list, show, register, bind a wallet, run the reference agent, check an agent's protocol conformance",
  "daemon daemon":
    "Run the resolver daemon: watch ResolutionRequested on the market contract (--market or the deployment file), propose a bonded verdict for every requested market exactly once through the workflow and the settle module (Invalid after --max-attempts runs that failed or lacked answers), finalize its proposals after the dispute window, escalate or concede disputes (--on-dispute), publish pending ERC-8004 feedback, keep state in SQLite, serve the HTTP API (/health, /metrics, /markets/:id, /bundles/<hash>.json, /.well-known/jwks.json, the Agora event stream, POST /markets/:id/resolve, /track-record, /answers/:id). With --don-mode it resolves as a Chainlink CRE DON would (docs/CRE.md): from its own relayed signed answers, within the DON limits, so both give one bundle. Needs the key of a resolver on the market (PRIVATE_KEY). Runs until SIGINT/SIGTERM, then says what it sent and what is left (exit 130 after Ctrl-C).",
  "deploy deploy":
    "Deploy the registries and markets and write deployments/<network>.json. Where the canonical ERC-8004 registries exist (Sepolia, other testnets, mainnets) they are used and only the markets are deployed. Progress is journaled in <file>.partial: after a failure, run the same command again to continue where it stopped.",
  "explorer explorer":
    "Serve the resolution explorer (markets, resolution traces with an in-browser bundle hash check, agents' track records) for the market contract, reading the chain and the published bundles. Prints the URL; runs until SIGINT/SIGTERM.",
  "inspect list":
    "List the agents registered in the identity registry and the agents that joined markets, with the markets each joined.",
  "inspect show":
    "Show an agent: owner, wallet, registration (endpoint, protocol), its record in this market contract, the ERC-8004 summary and its answers in finalized markets.",
  "inspect owed":
    "What an address can collect now: the market's pending withdrawal (`market withdraw`) and claimable bets (`bet claim <id>`).",
  "market-lifecycle dispute":
    "Dispute a proposal during its window: posts the market's bond and escalates to its arbiter with your claimed verdict. An arbiter with its own ERC-20 bond (an UmaArbiter) is approved for exactly that bond first; so is an UmaArbiter fallback, which pulls it if the arbiter stays silent 30 days.",
  "market-lifecycle expire":
    "After the arbiter's 30 days of silence (anyone): hand a disputed market to its fallback arbiter, or end it Invalid with each bond back when there is none, it refuses or it was silent too. On a claim an UmaArbiter fallback holds awaiting its UMA bond: --fund posts that bond from your key (approved first; you become the asserter); after the funding window this rules the claim abandoned (the proposal stands). With --fund before the hand-off, UMA's bond is approved first.",
  "market-lifecycle vote":
    "As a member of the market's CommitteeArbiter: vote the verdict of a disputed market. At the committee's threshold the market is finalized with it.",
  "market-lifecycle finalize":
    "Finalize an undisputed proposal after its window (anyone): rewards, stakes, reputation and ERC-8004 records are written.",
  "market-lifecycle publish-feedback":
    "Write the pending ERC-8004 records of a finalized market (seats past the 10 written at finalization). Permissionless.",
  "market-lifecycle retry-feedback":
    "Retry the ERC-8004 records of one seat that the registry refused (e.g. the agent had approved the market as its operator). Permissionless.",
  "market-lifecycle settings":
    "The market contract's owner, defaults for new markets, resolvers (queued, active for markets created from when) and the queued default arbiter (effective at).",
  "market create":
    "Create a market with a reward pool and its settings (admission, stake, seats, dispute window, bond, arbiter; omitted = the contract's defaults). Prints the marketId.",
  "market join":
    "Join a market as a worker for an agent you control (owner, operator or its agent wallet), with a stake.",
  "market request-resolution":
    "After the deadline: freeze the worker set and ask for resolution (a market nobody joined is cancelled and refunded).",
  "market market":
    "Resolution markets: list, create, join, request resolution, show/status, dispute, finalize, cancel (cancel-stale), publish/retry feedback, settings, withdraw",
  "owner defaults":
    "Change the defaults for new markets (the contract enforces its bounds); unnamed settings keep their value.",
  "owner allow":
    "Put an arbiter on the deployment's allow-list (markets may name it from the timelock on; settlers and watchers trust its rulings), e.g. an UmaArbiter deployed for this market.",
  "resolve resolve":
    "One-shot resolution of a market in ResolutionRequested: run the workflow (read → discover → ask → quorum → challenge → evaluate → verdict) and propose its verdict on-chain with the market's bond (disputable during the market's window; `market finalize` after it). A market past ResolutionRequested is reported as already settled. An Invalid verdict while workers failed (unreachable, missing credentials) is not proposed without --allow-invalid: fix the cause and rerun. The key must be a resolver active for the market.",
  "track-record export":
    "Write the track record as a cresolver-track-record/1 document (the index over --cache, synced first; else read from the chain's logs)",
  "track-record verify":
    "Check a cresolver-track-record/1 document (file or URL) against the chain: every head recomputed, the last one compared with the market's cut-off (--market-id), recordHead(), or the MarketRecorded event of its last entry",
  "watch watch":
    "Review every proposal in its dispute window (or the given markets) from public data: the per-seat reports, the track record at the market's cut-off (rulings of allowed arbiters as truth) and the bundle at the proposal's URI checked against its hash. The vote is recomputed under a stricter coalition rule; a proposal that is fragile, differs from the recomputed verdict, or goes against --against-share of the seats is reported, and disputed with the market's bond (plus an UmaArbiter's ERC-20 bond, approved first) only with --dispute.",
} as const;

/** A command's key in HELP_TEXT: "<file> <command>". */
export type HelpKey = keyof typeof HELP_TEXT;

/** The command `key` names (its last word), described by its help text. */
export function describedCommand(key: HelpKey): Command {
  return new Command(key.slice(key.lastIndexOf(" ") + 1)).description(HELP_TEXT[key]);
}

/** A command on one market: `describedCommand(key)` with the `<marketId>` argument (parsed to a bigint). */
export function marketIdCommand(key: HelpKey): Command {
  return describedCommand(key).addArgument(marketIdArgument());
}
