import { runHttpService } from '../core/http-service.js';
import { createWebApp } from './app.js';

await runHttpService({ name: 'checkout page', port: (config) => config.webPort, createApp: createWebApp });
