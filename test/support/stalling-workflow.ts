/** A workflow stuck in a loop: it never yields the workflow thread (test/integration/workflow-thread-stall.test.ts). */
export function spinForever(): Promise<void> {
  let turns = 0;
  while (turns >= 0) turns++;
  return Promise.resolve();
}
