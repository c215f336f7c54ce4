import { Hono } from 'hono';
import { answerDispute, type DisputeAnswerRequest } from '../../application/disputes/answer-dispute.js';
import { disputeEvidenceSchema } from '../../core/checkout/dispute-evidence.js';
import type { Config } from '../../core/config.js';
import type { Db } from '../../core/db/client.js';
import { getOrder } from '../../core/orders/orders.js';
import type { Temporal } from '../../core/temporal/connection.js';
import { disputeWorkflows } from '../../workflows/dispute/client.js';
import { auditMerchantKey } from '../audit-entry.js';
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
    const cartId = c.req.param('cartId');
    const order = await answer(c.get('merchant'), cartId, { answer: 'evidence', evidence });
    // The kind only: the evidence's text names the customer and their address, which the audit log never keeps.
    await auditMerchantKey(c, deps, { action: 'dispute.evidence', target: `order:${cartId}`, after: { kind: evidence.kind } });
    return c.json(order, 202);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, SUBMIT_DISPUTE_EVIDENCE);

  serve(app, MERCHANT_MOUNT, ACCEPT_DISPUTE, async (c) => {
    const cartId = c.req.param('cartId');
    const order = await answer(c.get('merchant'), cartId, { answer: 'accept' });
    await auditMerchantKey(c, deps, { action: 'dispute.accept', target: `order:${cartId}` });
    return c.json(order, 202);
  });
  refuseOtherMethods(app, MERCHANT_MOUNT, ACCEPT_DISPUTE);
  return app;
}
