/**
 * Dynamic config every Temporal server of ours runs with, whoever starts it: the dev server
 * (./temporal-server.ts), temporal-server on PostgreSQL (./temporal-sql-server.ts) and the compose
 * stack (deploy/temporal/dynamicconfig.yaml, held to these values by test/unit/docker-compose.test.ts).
 */
export const TEMPORAL_DYNAMIC_CONFIG = {
  // The charge that a pay update's workflow task schedules comes back to that worker in the task's own
  // response, instead of through the matching service and an activity poll (docs/decisions/session-cost.md).
  'system.enableActivityEagerExecution': true,
  // A start that asks for it (TEMPORAL_EAGER_START) gets the session's first workflow task in its answer, for
  // the worker in the starting process, instead of through the matching service (docs/decisions/session-cost.md).
  'system.enableEagerWorkflowStart': true,
} as const satisfies Record<string, number | string | boolean>;
