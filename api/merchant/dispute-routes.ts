import { Hono } from 'hono';
import { answerDispute, type DisputeAnswerRequest } from '../../application/disputes/answer-dispute.js';
import { disputeEvidenceSchema } from '../../core/checkout/dispute-model.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { getOrder } from '../../core/orders/orders.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { disputeWorkflows } from '../../workflows/dispute/client.js';
import { jsonBody, readValidJson } from '../json-body.js';
import { refuseOtherMethods, serve } from '../route-declaration.js';
import type { AuthenticatedMerchant } from './auth.js';
import { ACCEPT_DISPUTE, EVIDENCE_BODY_BYTES, SUBMIT_DISPUTE_EVIDENCE } from './dispute-paths.js';
import { MERCHANT_MOUNT } from './mount.js';

/** The merchant's answer to a dispute (./dispute-paths.ts), under the merchant API's key check (./routes.ts). */
export function disputeRoutes(deps: { config: Config; db: Db; temporal: Temporal }) {
  const { config, db } = deps;
  const answers = { db, keyring: config.keyring, disputes: disputeWorkflows(deps.temporal.client, config) };
  const app = new Hono();

  const answer = async (merchant: AuthenticatedMerchant, cartId: string, request: DisputeAnswerRequest) => {
    await answerDispute(answers, merchant, cartId, request);
    return getOrder(db, config, merchant, cartId);
  };

  serve(app, MERCHANT_MOUNT, SUBMIT_DISPUTE_EVIDENCE, jsonBody(EVIDENCE_BODY_BYTES), async (c) => {
    const evidence = await readValidJson(c, disputeEvidenceSchema);
    return c.json(await answer(c.get('merchant'), c.req.param('cartId'), { answer: 'evidence', evidence }), 202);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, SUBMIT_DISPUTE_EVIDENCE);

  serve(app, MERCHANT_MOUNT, ACCEPT_DISPUTE, async (c) => c.json(await answer(c.get('merchant'), c.req.param('cartId'), { answer: 'accept' }), 202));
  refuseOtherMethods(app, MERCHANT_MOUNT, ACCEPT_DISPUTE);
  return app;
}
