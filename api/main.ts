import { runHttpService } from '../core/http-service.js';
import { createApiApp } from './app.js';

await runHttpService({
  name: 'api',
  port: (config) => config.apiPort,
  createApp: createApiApp,
  // Loaded only with TEMPORAL_EAGER_START: the worker SDK and the bundler stay out of an API that runs no worker.
  inProcessWorker: async (deps) => (await import('../worker/in-process.js')).startInProcessCartWorker(deps),
});
