/**
 * Everything a production deployment must set (core/config.ts), with values that reach nothing real:
 * https addresses nobody serves, a Stripe test key, an SMTP server and a Twilio account that do not
 * exist. Tests that boot production give their own adapters (or point these settings at local
 * stand-ins) and talk to the ports the stack listens on. The data keys are the test's own.
 */
export const PRODUCTION_SETTINGS = {
  CHECKOUT_ENV: 'production',
  API_BASE_URL: 'https://api.checkout.test',
  CHECKOUT_BASE_URL: 'https://pay.checkout.test',
  PAYMENT_PROCESSOR: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_productionprofile',
  SMTP_URL: 'smtp://codes:secret@smtp.checkout.test:587',
  OTP_EMAIL_FROM: 'Checkout <codes@checkout.test>',
  TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`,
  TWILIO_AUTH_TOKEN: 'twilio-auth-token-for-tests',
  TWILIO_FROM: '+15005550006',
  OPERATOR_TOKEN: 'test-operator-token-0123456789',
  METRICS_TOKEN: 'test-metrics-scrape-token-0123456789',
  TEMPORAL_UI_ORIGINS: 'https://temporal.checkout.test',
};

/**
 * Sandbox with real code providers configured (SMTP and Twilio; a test gives the worker a recording
 * sender in their place): codes leave as real messages, so the code limits count them.
 */
export const REAL_CODE_PROVIDERS = {
  SMTP_URL: PRODUCTION_SETTINGS.SMTP_URL,
  OTP_EMAIL_FROM: PRODUCTION_SETTINGS.OTP_EMAIL_FROM,
  TWILIO_ACCOUNT_SID: PRODUCTION_SETTINGS.TWILIO_ACCOUNT_SID,
  TWILIO_AUTH_TOKEN: PRODUCTION_SETTINGS.TWILIO_AUTH_TOKEN,
  TWILIO_FROM: PRODUCTION_SETTINGS.TWILIO_FROM,
};
