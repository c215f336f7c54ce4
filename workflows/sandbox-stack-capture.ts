/**
 * Preloaded into the workflow sandbox before its globals freeze (worker/create-worker.ts). The SDK's
 * promise hook builds an `Error().stack` for every promise a workflow makes, for the Temporal UI's
 * stack-trace tab; that was about 30 % of the workflow thread's busy time (docs/decisions/session-cost.md).
 * With no frames to capture the hook costs next to nothing, and the tab shows empty stacks
 * (docs/runbook.md says so). Errors a workflow throws lose their stack too, never their message.
 */
Error.stackTraceLimit = 0;
