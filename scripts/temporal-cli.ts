import { ensureGoTool, type GoTool } from './go-tool.js';

/** The newest CLI release whose go.mod has no `replace`, so `go install` can build it: it embeds the Temporal server and the Web UI. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

export const TEMPORAL_CLI: GoTool = {
  binary: 'temporal',
  title: 'The Temporal CLI (needed to run the Temporal dev server)',
  module: 'github.com/temporalio/cli/cmd/temporal',
  version: TEMPORAL_CLI_VERSION,
  envVar: 'TEMPORAL_CLI',
  alternatives: [
    'install the Temporal CLI yourself and put `temporal` on PATH, or point TEMPORAL_CLI at it',
    'run against an existing Temporal server by setting TEMPORAL_ADDRESS',
  ],
};

/**
 * Finds the `temporal` binary: TEMPORAL_CLI, then PATH, then our per-user cache; otherwise builds it
 * into the cache with `go install` (minutes, once).
 */
export const ensureTemporalCli = (log?: (line: string) => void): Promise<string> => ensureGoTool(TEMPORAL_CLI, log);
