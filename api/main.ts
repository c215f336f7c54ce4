import { runHttpService } from '../core/http-service.js';
import { createApiApp } from './app.js';

await runHttpService({ name: 'api', port: (config) => config.apiPort, createApp: createApiApp });
