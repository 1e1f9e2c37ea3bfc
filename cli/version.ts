/** The CLI's version, in its own module so `cresolver --version` answers without loading the command tree. */
export const VERSION = "0.3.0";
