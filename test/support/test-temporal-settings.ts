/**
 * Production suggests continue-as-new at 4 Ki history events; the run's test server does at this
 * many, so a test reaches it with a few dozen webhook deliveries. Only the webhook delivery workflow
 * acts on the suggestion.
 */
export const CONTINUE_AS_NEW_AFTER_EVENTS = 60;

export const TEST_TEMPORAL_DYNAMIC_CONFIG = { 'limit.historyCount.suggestContinueAsNew': CONTINUE_AS_NEW_AFTER_EVENTS };
