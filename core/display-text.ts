import { z } from 'zod';

/**
 * Text a merchant sends that the checkout page shows to its customers (the store's and the merchant's
 * name, item titles and descriptions, whether a cart's or a payment link's). Bidirectional embedding,
 * override and isolate controls (U+202A–U+202E, U+2066–U+2069) reorder what the customer reads: a
 * right-to-left override turns `Demo Store ‮moc.elpmaxe` into what looks like another store or
 * amount. No name or title needs them: the page sets each text's direction itself. The directional
 * marks (U+200E, U+200F, U+061C) stay allowed: they only lean neutral characters such as punctuation
 * one way, never reorder the letters, and Arabic and Hebrew text legitimately carries them.
 */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

const BIDI_CONTROL_MESSAGE =
  'must not contain bidirectional control characters (U+202A–U+202E, U+2066–U+2069): remove them, the checkout page sets the text direction itself';

const hasNoBidiControls = (value: string): boolean => !BIDI_CONTROL.test(value);

/** The one rule for merchant display text (docs/api.md, "Display text"); the envelope's `path` names the field. */
export function displayText<T extends z.ZodType<string>>(schema: T) {
  return schema.refine(hasNoBidiControls, BIDI_CONTROL_MESSAGE);
}
