import type { TestProject } from 'vitest/node';
import { bundleWorkflows } from '../../worker/create-worker.js';

/** vitest.workflows.config.ts: the workflow bundle, built once for every file instead of once per file. */
export default async function setup(project: TestProject) {
  const bundle = await bundleWorkflows();
  project.provide('workflowBundle', { code: bundle.code, sourceMap: bundle.sourceMap });
}
