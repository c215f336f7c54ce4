// A merchant's server for Hosted Checkout: sells one order per id, sends the customer to the hosted
// page, fulfils on a verified order_created of a cart it made with its API key, and refunds.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const { HOSTED_CHECKOUT_API_URL: apiUrl, HOSTED_CHECKOUT_API_KEY: apiKey, STORE_URL: storeUrl } = process.env; // STORE_URL: on a domain registered for your merchant
const hook = new Webhook(process.env.WEBHOOK_SECRET);
const orders = new Map(); // your database in real life
const byCart = new Map();
const seen = new Set();
const log = (line) => console.log(`${new Date().toISOString()} ${line}`);

/** One request to the API with the API key; the Idempotency-Key makes a retry of it safe. */
async function call(path, idempotencyKey, body) {
  const response = await fetch(`${apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.text() };
}

/** Creates the order's cart (the same cart however often the customer clicks) and redirects to it. */
async function pay(orderId, res) {
  const page = `${storeUrl}/orders/${orderId}`;
  const item = {
    title: 'T-shirt',
    description: 'Organic cotton',
    price: 2500,
    quantity: 1,
    url: `${storeUrl}/t-shirt`,
    image: `${storeUrl}/t-shirt.png`,
    zeroPay: false,
  };
  const cart = {
    cartObject: {
      store: { platformUuid: process.env.HOSTED_CHECKOUT_PLATFORM_UUID, name: 'Node Store', url: storeUrl },
      cart: { currency: 'EUR', country: 'IE', extra: { orderId }, items: [item], merchantUrls: { successUrl: page, failureUrl: page } },
    },
  };
  const created = await call('/v2/public/api/cart/', `order-${orderId}`, cart);
  if (created.status !== 200) {
    log(`create-cart failed: ${created.status} ${created.body}`);
    return res.writeHead(502).end('checkout unavailable');
  }
  const { cartId } = JSON.parse(created.body).data;
  if (!orders.has(orderId)) {
    const order = { id: orderId, cartId, amount: 2500, currency: 'EUR', status: 'awaiting_payment' };
    orders.set(orderId, order);
    byCart.set(cartId, order);
  }
  res.writeHead(303, { location: `${process.env.HOSTED_CHECKOUT_CHECKOUT_URL}/?token=${cartId}` }).end();
}

/** Verifies the signature over the raw body, acknowledges, and acts once per event id. */
function webhook(raw, headers, res) {
  let event;
  try {
    event = hook.verify(raw, headers);
  } catch {
    return res.writeHead(400).end('invalid signature');
  }
  res.writeHead(200).end();
  if (seen.has(event.id)) return; // retries and replays carry the same id
  seen.add(event.id);
  const { cartId, amount, currency, createdWith } = event.data;
  // Signed is not enough: anyone can make and pay a cart for you; yours were created with your API key.
  const order = byCart.get(cartId);
  if (!order || createdWith !== 'api_key' || amount !== order.amount || currency !== order.currency)
    return log(`${event.event} of cart ${cartId}: not one of my orders, ignored`);
  // A manual-capture cart's order_created says "authorized": ship, then capture.
  const status = { order_created: 'fulfilled', order_refunded: 'refunded' }[event.event];
  if (!status) return;
  order.status = status;
  log(`${status} order ${order.id} (cart ${cartId}), verified event ${event.id}`);
}

/** Asks the Order API to refund the whole order; its order_refunded then confirms it. */
async function refund(orderId, res) {
  const order = orders.get(orderId);
  if (!order) return res.writeHead(404).end();
  const refunded = await call(`/v2/merchant/orders/${order.cartId}/refunds`, `refund-${orderId}`, { amount: order.amount, reason: 'Customer request' });
  res.writeHead(refunded.status, { 'content-type': 'application/json' }).end(refunded.body);
}

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const raw = Buffer.concat(chunks); // the exact bytes signed: verify them, not a re-serialized object
    const route = /^\/orders\/([\w-]+)\/(pay|refund)$/.exec(req.url);
    if (req.method !== 'POST') res.writeHead(405).end();
    else if (req.url === '/webhooks') webhook(raw, req.headers, res);
    else if (route) (route[2] === 'pay' ? pay : refund)(route[1], res).catch((err) => (log(String(err)), res.writeHead(502).end()));
    else res.writeHead(404).end();
  });
}).listen(Number(process.env.PORT), '127.0.0.1', () => log(`listening on port ${process.env.PORT}`));
