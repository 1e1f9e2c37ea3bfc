import { CresolverError } from "../../workflow/util/errors.js";
/** Errors the CLI reports as one line on stderr, with an exit code. */
export class CliError extends CresolverError {
  /** 2: bad input or usage; 1: the chain or the network failed. */
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
