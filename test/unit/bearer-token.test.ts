import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bearerTokenMatches, presentedBearerToken } from '../../core/bearer-token.js';

/** A token as configured: printable, no surrounding spaces (a header's value is trimmed). */
const token = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/);

describe('the token of an Authorization header', () => {
  it('is what follows Bearer, whatever its case, without the spaces around it', () => {
    expect(presentedBearerToken('Bearer s3cret')).toBe('s3cret');
    expect(presentedBearerToken('bearer s3cret')).toBe('s3cret');
    expect(presentedBearerToken('BEARER   s3cret  ')).toBe('s3cret');
  });

  it('is undefined for no header, another scheme, or Bearer with nothing after it', () => {
    for (const header of [undefined, '', 'Basic dXNlcjpwYXNz', 'Token s3cret', 'Bearers3cret', 'Bearer', 'Bearer ', 'Bearer    ', ' Bearer s3cret'])
      expect(presentedBearerToken(header), JSON.stringify(header)).toBeUndefined();
  });
});

describe('whether an Authorization header carries the configured token', () => {
  it('matches the token itself, in any case of Bearer', () => {
    expect(bearerTokenMatches('Bearer s3cret', 's3cret')).toBe(true);
    expect(bearerTokenMatches('bearer  s3cret', 's3cret')).toBe(true);
  });

  it('refuses another token, one that starts or ends like it, and a different case', () => {
    for (const header of ['Bearer s3cre', 'Bearer s3crett', 'Bearer S3CRET', 'Bearer x s3cret', 'Basic s3cret', 's3cret'])
      expect(bearerTokenMatches(header, 's3cret'), header).toBe(false);
  });

  it('matches nothing when no token is configured, an empty one included', () => {
    for (const configured of [undefined, '']) {
      expect(bearerTokenMatches('Bearer ', configured)).toBe(false);
      expect(bearerTokenMatches('Bearer anything', configured)).toBe(false);
      expect(bearerTokenMatches(undefined, configured)).toBe(false);
    }
  });

  it('matches a token with itself and with nothing else, whatever their lengths (property)', () => {
    fc.assert(
      fc.property(token, token, (configured, other) => {
        expect(bearerTokenMatches(`Bearer ${configured}`, configured)).toBe(true);
        expect(bearerTokenMatches(`Bearer ${other}`, configured)).toBe(other === configured);
        expect(bearerTokenMatches(`Bearer ${configured}${other}`, configured)).toBe(false);
        expect(bearerTokenMatches(`Bearer ${configured}`, `${configured}${other}`)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
