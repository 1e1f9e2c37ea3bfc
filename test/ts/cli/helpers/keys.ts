/** Private keys of Hardhat's default accounts (the public "test … junk" mnemonic), derived, not typed in. */
export { localDevKey as hardhatKey } from "../../../../workflow/chain/dev-accounts.js";
