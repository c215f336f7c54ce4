import { runHttpService } from '../core/http-service.js';
import { createApiApp } from './app.js';

runHttpService({ name: 'api', port: (config) => config.apiPort, createApp: createApiApp });
