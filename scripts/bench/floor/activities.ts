/** The floor's activities do nothing: their cost is the round trip through Temporal (./workflows.ts). */
export const floorActivities = {
  async charge(): Promise<void> {},
  async sendWebhook(): Promise<void> {},
};

export type FloorActivities = typeof floorActivities;
